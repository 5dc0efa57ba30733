/// Where a HEIF file's thumbnail item lies, from the head of the file: what a photo analysed
/// from its preview needs read, so that the rest of a phone's HEIC (its primary image, the
/// bulk of the file) never crosses a network mount.
///
/// A HEIF file keeps its item boxes in a `meta` box near its start and its items' bytes in
/// `mdat` boxes after it, each item wherever its writer put it (an iPhone's thumbnail can sit
/// after the 48 tiles of its primary image). So the head says where the thumbnail's extents
/// are, and those are read (`PhotoFetcher.fetchRanges`), with the small items that libheif
/// reads when it opens the file or the analysis reads (grid and overlay descriptors, Exif and
/// XMP blocks). `HEIFDecoder` then decodes the thumbnail from the file's bytes with everything
/// else left as zeros: libheif reads the primary image's bytes when it opens a file, but
/// decodes only the image asked for (checked on heif-enc's files: the same thumbnail,
/// bit for bit).
public enum HEIFHead {
    public enum Extent: Equatable, Sendable {
        /// The `meta` box runs past the head: at least this many bytes hold it.
        case needsAtLeast(Int)
        /// The byte ranges past the head that the thumbnail needs (empty: the head holds them).
        case ranges([Range<Int>])
        /// No thumbnail of the primary image, item bytes this reading does not follow (in
        /// another file or another item), a damaged `meta` box, or needs past `longestRanges`
        /// of the file: read it whole.
        case readWhole
    }

    /// Item types whose bytes libheif or the analysis read besides the thumbnail's own: image
    /// grids and overlays (descriptors of a few bytes, read when the file is opened), Exif
    /// blocks (capture time, camera) and `mime` items (XMP).
    static let smallItemTypes: Set<String> = ["grid", "iovl", "Exif", "mime"]

    /// At most this many separate ranges, and this share of the file: past them, reading the
    /// whole file costs less than finding the preview.
    public static let maxRanges = 64
    public static let longestRangesShare = 4

    /// Where the preview of the file whose first bytes are `head` lies, for a file of
    /// `fileSize` bytes.
    public static func extent(_ head: [UInt8], fileSize: Int) -> Extent {
        let boxes = HEIFBoxes(bytes: head)
        var position = 0
        while position < fileSize {
            guard position + 16 <= head.count else { return .needsAtLeast(position + 16) }
            guard let box = boxes.box(at: position, limit: fileSize) else { return .readWhole }
            switch box.type {
            case "meta":
                return box.end <= head.count ? ranges(meta: box, in: boxes, head: head.count, fileSize: fileSize) : .needsAtLeast(box.end)
            case "mdat", "moov":
                return .readWhole  // the items' boxes after their bytes, or a sequence: read it whole
            default:
                position = box.end
            }
        }
        return .readWhole
    }

    /// The ranges the primary image's thumbnails need, from the item boxes of `meta` (a full box).
    private static func ranges(meta: HEIFBoxes.Box, in boxes: HEIFBoxes, head: Int, fileSize: Int) -> Extent {
        var primary: UInt32?, types: [UInt32: String] = [:], references: [(type: String, from: UInt32, to: [UInt32])] = []
        var locations: [UInt32: HEIFBoxes.Location]?
        for child in boxes.children(from: meta.contentStart + 4, to: meta.end) {
            switch child.type {
            case "pitm": primary = boxes.primaryItem(child)
            case "iinf": types = boxes.itemTypes(child)
            case "iref": references = boxes.references(child)
            case "iloc": locations = boxes.locations(child)
            default: break
            }
        }
        guard let primary, let locations else { return .readWhole }
        let thumbnails = references.filter { $0.type == "thmb" && $0.to.contains(primary) }.map(\.from)
        guard !thumbnails.isEmpty else { return .readWhole }
        // The thumbnails, the items they are made of (a thumbnail can be a grid of tiles), and
        // the small items.
        var needed = Set(thumbnails), queue = thumbnails
        while let item = queue.popLast(), needed.count <= 1024 {
            for reference in references where reference.type == "dimg" && reference.from == item {
                for tile in reference.to where needed.insert(tile).inserted { queue.append(tile) }
            }
        }
        needed.formUnion(types.filter { smallItemTypes.contains($0.value) }.keys)
        var extents: [Range<Int>] = []
        for item in needed {
            guard let location = locations[item] else {
                if thumbnails.contains(item) { return .readWhole }
                continue  // an item without bytes
            }
            guard location.dataReferenceIndex == 0 else { return .readWhole }  // bytes in another file
            switch location.constructionMethod {
            case 0:
                for extent in location.extents {
                    // A length of 0 means "to the end": not a small piece of the file.
                    guard extent.length > 0, extent.offset <= fileSize - extent.length else { return .readWhole }
                    extents.append(extent.offset..<extent.offset + extent.length)
                }
            case 1:
                continue  // in the meta box's idat, within the head
            default:
                return .readWhole
            }
        }
        let past = merged(extents).compactMap { range -> Range<Int>? in
            range.upperBound <= head ? nil : max(range.lowerBound, head)..<range.upperBound
        }
        let total = past.reduce(0) { $0 + $1.count }
        guard past.count <= maxRanges, total <= fileSize / longestRangesShare else { return .readWhole }
        return .ranges(past)
    }

    /// `ranges` sorted, with overlapping and touching ones joined, and ones less than 4 KiB
    /// apart (one read costs more than the bytes between).
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var joined: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = joined.last, range.lowerBound <= last.upperBound + 4096 {
                joined[joined.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                joined.append(range)
            }
        }
        return joined
    }
}
