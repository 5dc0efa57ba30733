/// Finds the EXIF block of a JPEG (the APP1 segment that starts "Exif\0\0") and reads it.
public enum JPEGMetadataReader {
    /// Segments scanned before giving up: EXIF sits in the first few in every real file.
    private static let maxSegments = 64

    public static func read(_ bytes: [UInt8]) -> PhotoMetadata {
        guard let tiff = exifBlock(bytes) else { return PhotoMetadata() }
        return TIFFMetadataReader.read(bytes[tiff])
    }

    /// The byte range of the TIFF structure inside the file, if there is an EXIF segment.
    public static func exifBlock(_ bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        for _ in 0..<maxSegments {
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }  // start of scan / end: no EXIF
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            let payload = (offset + 4)..<(offset + 2 + length)
            if marker == 0xE1, payload.count > 6,
               bytes[payload.lowerBound..<payload.lowerBound + 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                return (payload.lowerBound + 6)..<payload.upperBound
            }
            offset += 2 + length
        }
        return nil
    }
}
