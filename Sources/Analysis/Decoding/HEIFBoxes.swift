/// The ISO base media file format's boxes (ISO/IEC 14496-12), as far as `HEIFHead` reads them:
/// box headers, and the item boxes of a HEIF file's `meta` box (ISO/IEC 23008-12): which item
/// is primary (`pitm`), each item's type (`iinf`), how items refer to each other (`iref`) and
/// where their bytes lie (`iloc`). Every read is bounds-checked: a damaged or hostile box gives
/// nil, never a read past the bytes.
struct HEIFBoxes {
    let bytes: [UInt8]

    /// A box: its four-character type, where its content starts and where it ends (offsets in
    /// the file; `end` may lie past the bytes at hand).
    struct Box {
        let type: String
        let contentStart: Int
        let end: Int
    }

    /// The box whose header starts at `start`, within `limit` (its parent's end or the file's
    /// size); nil when the header is not all in the bytes or is invalid.
    func box(at start: Int, limit: Int) -> Box? {
        guard let size32 = u32(start), let type = fourCC(start + 4) else { return nil }
        var headerLength = 8, size = size32
        if size32 == 1 {
            guard let large = u64(start + 8), large <= UInt64(Int.max) else { return nil }
            size = Int(large)
            headerLength = 16
        } else if size32 == 0 {
            size = limit - start  // to the end of its container
        }
        guard size >= headerLength, start <= limit - size else { return nil }
        return Box(type: type, contentStart: start + headerLength, end: start + size)
    }

    /// The child boxes of the content range `start..<end` (all within the bytes), in order.
    func children(from start: Int, to end: Int) -> [Box] {
        var boxes: [Box] = [], position = start
        while position + 8 <= end, boxes.count < 4096, let child = box(at: position, limit: end) {
            boxes.append(child)
            position = child.end
        }
        return boxes
    }

    // MARK: Items

    /// An item's location (`iloc`): how its bytes are found (0: offsets in the file, 1: in the
    /// `idat` box, 2: another item's) and its extents.
    struct Location {
        var constructionMethod = 0
        var dataReferenceIndex = 0
        var extents: [(offset: Int, length: Int)] = []
    }

    /// The primary item's id (`pitm`, a full box).
    func primaryItem(_ pitm: Box) -> UInt32? {
        guard let version = self.u8(pitm.contentStart) else { return nil }
        return version == 0 ? u16(pitm.contentStart + 4).map(UInt32.init) : u32(pitm.contentStart + 4).map(UInt32.init)
    }

    /// Each item's type (`iinf`'s `infe` boxes of version 2 and 3; earlier versions name none).
    func itemTypes(_ iinf: Box) -> [UInt32: String] {
        guard let version = u8(iinf.contentStart) else { return [:] }
        let entries = iinf.contentStart + 4 + (version == 0 ? 2 : 4)
        var types: [UInt32: String] = [:]
        for infe in children(from: entries, to: iinf.end) where infe.type == "infe" {
            guard let infeVersion = u8(infe.contentStart), infeVersion >= 2 else { continue }
            let idAt = infe.contentStart + 4
            let id = infeVersion == 2 ? u16(idAt).map(UInt32.init) : u32(idAt).map(UInt32.init)
            let typeAt = idAt + (infeVersion == 2 ? 2 : 4) + 2
            if let id, let type = fourCC(typeAt) { types[id] = type }
        }
        return types
    }

    /// The references of `iref`: (type, from, to) for each.
    func references(_ iref: Box) -> [(type: String, from: UInt32, to: [UInt32])] {
        guard let version = u8(iref.contentStart) else { return [] }
        let idSize = version == 0 ? 2 : 4
        var references: [(type: String, from: UInt32, to: [UInt32])] = []
        for reference in children(from: iref.contentStart + 4, to: iref.end) {
            var position = reference.contentStart
            guard let from = id(at: position, size: idSize), let count = u16(position + idSize) else { continue }
            position += idSize + 2
            var to: [UInt32] = []
            for _ in 0..<count {
                guard position + idSize <= reference.end, let target = id(at: position, size: idSize) else { break }
                to.append(target)
                position += idSize
            }
            references.append((reference.type, from, to))
        }
        return references
    }

    /// More extents than this in one `iloc` box: a damaged or hostile one (a phone's has one
    /// per tile, a few dozen).
    static let maxExtents = 4096

    /// Each item's location (`iloc`, versions 0 to 2); nil when the box is damaged.
    func locations(_ iloc: Box) -> [UInt32: Location]? {
        guard let version = u8(iloc.contentStart), version <= 2,
              let sizes = u8(iloc.contentStart + 4), let moreSizes = u8(iloc.contentStart + 5) else { return nil }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseOffsetSize = Int(moreSizes >> 4)
        let indexSize = version == 0 ? 0 : Int(moreSizes & 15)
        var position = iloc.contentStart + 6
        let itemCount: Int? = version < 2 ? u16(position).map { Int($0) } : u32(position)
        guard let count = itemCount else { return nil }
        position += version < 2 ? 2 : 4
        var locations: [UInt32: Location] = [:], extents = 0
        for _ in 0..<count {
            guard let id = id(at: position, size: version < 2 ? 2 : 4) else { return nil }
            position += version < 2 ? 2 : 4
            var location = Location()
            if version >= 1 {
                guard let method = u16(position) else { return nil }
                location.constructionMethod = Int(method & 15)
                position += 2
            }
            guard let reference = u16(position), let base = uint(at: position + 2, size: baseOffsetSize),
                  let extentCount = u16(position + 2 + baseOffsetSize) else { return nil }
            location.dataReferenceIndex = Int(reference)
            position += 4 + baseOffsetSize
            // Extents with no offset or length fields take no bytes: a hostile count of them
            // would loop without reading anything.
            extents += Int(extentCount)
            guard extents <= Self.maxExtents else { return nil }
            for _ in 0..<extentCount {
                position += indexSize
                guard let offset = uint(at: position, size: offsetSize), let length = uint(at: position + offsetSize, size: lengthSize),
                      base <= Int.max - offset else { return nil }
                location.extents.append((base + offset, length))
                position += offsetSize + lengthSize
            }
            guard position <= iloc.end else { return nil }
            locations[id] = location
        }
        return locations
    }

    // MARK: Reading numbers (big-endian), nil past the bytes

    func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }

    func u16(_ at: Int) -> UInt16? { uint(at: at, size: 2).map { UInt16($0) } }

    func u32(_ at: Int) -> Int? { uint(at: at, size: 4) }

    func u64(_ at: Int) -> UInt64? {
        guard at >= 0, at <= bytes.count - 8 else { return nil }
        return (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) }
    }

    /// An unsigned number of `size` bytes (0, 2, 4 or 8; 0 reads as 0), when it fits an Int.
    func uint(at: Int, size: Int) -> Int? {
        guard size > 0 else { return 0 }
        guard [2, 4, 8].contains(size), at >= 0, at <= bytes.count - size else { return nil }
        let value = (0..<size).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    private func id(at: Int, size: Int) -> UInt32? { uint(at: at, size: size).map { UInt32(truncatingIfNeeded: $0) } }

    func fourCC(_ at: Int) -> String? {
        guard at >= 0, at <= bytes.count - 4 else { return nil }
        return String(decoding: bytes[at..<at + 4], as: UTF8.self)
    }
}
