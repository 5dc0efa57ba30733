/// A file's format, recognised from its first bytes (never from its name).
public enum PhotoFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, heif, gif, tiff, bmp, avif, jxl
    /// A camera's raw file (DNG, NEF, CR2, CR3, ARW, RAF, ORF, RW2, ...), read with LibRaw.
    case raw

    /// Bytes `detect` needs to see.
    public static let sniffLength = 16

    public static func detect<Bytes: Collection>(_ bytes: Bytes) -> PhotoFormat? where Bytes.Element == UInt8 {
        let head = Array(bytes.prefix(sniffLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return .avif }
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return .heif }
        }
        if starts(Array("ftyp".utf8), at: 4), starts(Array("crx ".utf8), at: 8) { return .raw }  // Canon CR3
        if starts(Array("FUJIFILMCCD-RAW".utf8)) { return .raw }                              // Fujifilm RAF
        if starts([0x49, 0x49, 0x52, 0x4F]) || starts([0x49, 0x49, 0x52, 0x53]) || starts([0x4D, 0x4D, 0x4F, 0x52]) { return .raw }  // Olympus ORF
        if starts([0x49, 0x49, 0x55, 0x00]) { return .raw }                                   // Panasonic RW2
        if starts([0x49, 0x49, 0x2A, 0x00]), starts(Array("CR".utf8), at: 8) { return .raw }  // Canon CR2
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0x42, 0x4D]) { return .bmp }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .jxl }
        return nil
    }

    /// `detect`, then a TIFF-structured file looked at more closely: one whose first directory
    /// carries DNGVersion, or describes a reduced-resolution preview (NewSubFileType 1: NEF,
    /// ARW, PEF and other TIFF-based raws put the camera's preview first and the sensor data
    /// in a sub-directory) is a raw file.
    public static func detectRefined(_ bytes: [UInt8]) -> PhotoFormat? {
        let format = detect(bytes)
        guard format == .tiff, bytes.count >= 8 else { return format }
        let little = bytes[0] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let low = u16(little ? at : at + 2), let high = u16(little ? at + 2 : at) else { return nil }
            return low | high << 16
        }
        guard let directory = u32(4), let count = u16(directory), count <= 1024 else { return format }
        for index in 0..<count {
            let entry = directory + 2 + 12 * index
            guard let tag = u16(entry) else { break }
            if tag == 50706 { return .raw }                                     // DNGVersion
            if tag == 254, let type = u16(entry + 2) {                          // NewSubFileType
                let value = type == 3 ? u16(entry + 8) : u32(entry + 8)
                if value == 1 { return .raw }
            }
        }
        return format
    }
}
