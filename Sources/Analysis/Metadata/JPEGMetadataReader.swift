/// Finds the EXIF block of a JPEG (the APP1 segment that starts "Exif\0\0") and reads it with
/// libexif (`ExifReader`). The marker walk is cull's own so that a head-only read (the first
/// 128 KiB of a file) is judged by the same bounded rules the whole file would be.
public enum JPEGMetadataReader {
    /// Segments scanned before giving up: EXIF sits in the first few in every real file.
    private static let maxSegments = 64

    public static func read(_ bytes: [UInt8]) -> PhotoMetadata {
        guard let tiff = exifBlock(bytes) else { return PhotoMetadata() }
        return ExifReader.read(payload: bytes[(tiff.lowerBound - ExifReader.header.count)..<tiff.upperBound])
    }

    /// The byte range of the TIFF structure inside the file (after "Exif\0\0"), if there is an
    /// EXIF segment.
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
               bytes[payload.lowerBound..<payload.lowerBound + 6].elementsEqual(ExifReader.header) {
                return (payload.lowerBound + 6)..<payload.upperBound
            }
            offset += 2 + length
        }
        return nil
    }
}
