/// A file's format, recognised from its first bytes (never from its name).
public enum PhotoFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, heif, gif, tiff, bmp, avif, jxl

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
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0x42, 0x4D]) { return .bmp }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .jxl }
        return nil
    }
}
