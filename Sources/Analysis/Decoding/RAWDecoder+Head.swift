import CLibRaw
import Foundation

extension RAWDecoder {
    /// What the head of a raw file (its first bytes: `PhotoFetcher.fetchHead`) gives.
    public enum HeadPreview: Sendable {
        /// The preview, whole in the head and accepted (`PreviewPolicy`): decoded as `decode`
        /// would with previews on, `fromPreview`.
        case decoded(Decoded)
        /// The preview lies past the head (or LibRaw could not take it from there): a head of at
        /// least this many bytes may hold it.
        case needsAtLeast(Int)
        /// Not from the head: no JPEG preview, a refused one, or a file LibRaw cannot open from
        /// its head. Read the file whole and `decode` it (which also reports what is wrong).
        case readWhole
    }

    /// The camera's preview from the head of a raw file. LibRaw opens the head as if it were
    /// the file: its directories come first in the TIFF-based raws (DNG, NEF, CR2, ARW, ORF,
    /// RW2, PEF), and the preview usually follows them, before the sensor data. LibRaw copies
    /// the preview from where its directories say, and a head that ends before the preview
    /// does leaves the copy short; so the copy counts only when the head holds it byte for
    /// byte. Found starting in the head, its end is how long the head must be; not found at
    /// all (LibRaw will not copy a preview that ends more than 16 KiB past the end of what it
    /// reads), the end of the furthest JPEG preview the directories in the head point to
    /// (`RAWHead`), or twice the head when they point to none past it.
    public static func previewFromHead(_ head: [UInt8], maxPixels: Int) -> HeadPreview {
        oneOpenMPThread?(1)
        guard let raw = openLibRaw() else { return .readWhole }
        defer { libraw_close(raw) }
        return head.withUnsafeBytes { buffer -> HeadPreview in
            guard libraw_open_buffer(raw, UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count) == LIBRAW_SUCCESS.rawValue else {
                return .readWhole
            }
            let width = Int(raw.pointee.sizes.width), height = Int(raw.pointee.sizes.height)
            guard width > 0, height > 0, width * height <= maxPixels else { return .readWhole }
            guard libraw_unpack_thumb(raw) == LIBRAW_SUCCESS.rawValue else { return .needsAtLeast(longerHead(than: head)) }
            let thumbnail = raw.pointee.thumbnail
            guard thumbnail.tformat == LIBRAW_THUMBNAIL_JPEG,
                  PreviewPolicy.accepts(previewWidth: Int(thumbnail.twidth), previewHeight: Int(thumbnail.theight), width: width, height: height) else {
                return .readWhole
            }
            // LibRaw's copy of the preview as the file holds it (`make_mem_thumb` may add an
            // EXIF segment to it): the bytes that must be in the head.
            guard let copy = thumbnail.thumb, thumbnail.tlength > UInt32(probe) else { return .readWhole }
            let stored = UnsafeRawBufferPointer(start: UnsafeRawPointer(copy), count: Int(thumbnail.tlength))
            // LibRaw sets a JPEG copy's first two bytes to the JPEG start marker: compared from the third.
            let tail = UnsafeRawBufferPointer(rebasing: stored[2...])
            guard let found = offset(of: UnsafeRawBufferPointer(rebasing: tail.prefix(probe)), in: buffer) else {
                return .needsAtLeast(longerHead(than: head))
            }
            let start = found - 2
            guard start >= 0, start + stored.count <= buffer.count else { return .needsAtLeast(start + stored.count) }
            guard buffer[start] == 0xFF, buffer[start + 1] == 0xD8, memcmp(buffer.baseAddress! + found, tail.baseAddress!, tail.count) == 0 else {
                return .readWhole
            }
            // Decoded as `decode` decodes it.
            guard let pixels = decodedThumbnail(raw) else { return .readWhole }
            let (orientation, metadata) = cameraDetails(raw)
            return .decoded(Decoded(pixels: pixels, width: width, height: height, orientation: orientation, metadata: metadata, fromPreview: true))
        }
    }

    /// The next head to try when the preview is not in this one: as far as the furthest JPEG
    /// preview the directories in the head point to (`RAWHead`), or twice as long when they
    /// point to none past it.
    private static func longerHead(than head: [UInt8]) -> Int {
        if let end = RAWHead.previewEnd(head), end > head.count { return end }
        return 2 * head.count
    }

    /// Bytes of the preview's start looked for in the head: a JPEG's first few hundred bytes
    /// (its markers and tables) are as good as unique to it.
    private static let probe = 256

    /// Where `needle` first occurs in `haystack`: each place its first byte occurs is compared
    /// in full (glibc's memmem is a GNU extension Swift's Glibc module does not show).
    private static func offset(of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer) -> Int? {
        guard let base = haystack.baseAddress, let wanted = needle.baseAddress, !needle.isEmpty, haystack.count >= needle.count else { return nil }
        let first = Int32(needle[0]), last = haystack.count - needle.count
        var position = 0
        while position <= last {
            guard let found = memchr(base + position, first, last - position + 1) else { return nil }
            position = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + position, wanted, needle.count) == 0 { return position }
            position += 1
        }
        return nil
    }
}
