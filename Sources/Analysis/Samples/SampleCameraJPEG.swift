/// Camera-like JPEGs for tests of head-only reads: a synthetic photo with EXIF as cameras write
/// it (camera, capture time, pixel size, a 160×120 thumbnail), and the same file with large
/// application segments between its EXIF block and its image header.
public enum SampleCameraJPEG {
    public static func encode(seed: UInt64, width: Int = 2400, height: Int = 1800) throws -> [UInt8] {
        let image = SyntheticPhoto.make(seed: seed, width: width, height: height)
        let thumbnail = try JPEGEncoder.encode(rgb: image.resized(width: 160, height: 120).pixels, width: 160, height: 120, quality: 85)
        let shot = CameraEXIF.Shot(width: width, height: height, captureTime: "2024:06:01 10:02:03")
        return try JPEGEncoder.encode(rgb: image.pixels, width: width, height: height, quality: 92, exif: CameraEXIF.block(for: shot, thumbnail: thumbnail))
    }

    /// `jpeg` with `count` APP2 segments of 60,000 bytes after its EXIF block (its first APP1
    /// segment): the image header ends up far past the usual head, as in files with large
    /// maker or vendor data.
    public static func withLargeSegments(_ jpeg: [UInt8], count: Int) -> [UInt8] {
        func segmentEnd(_ position: Int) -> Int { position + 2 + (Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])) }
        var position = 2
        while !(jpeg[position] == 0xFF && jpeg[position + 1] == 0xE1) { position = segmentEnd(position) }
        let afterEXIF = segmentEnd(position)
        let segment: [UInt8] = [0xFF, 0xE2, UInt8(60_002 >> 8), UInt8(60_002 & 0xFF)] + [UInt8](repeating: 0x20, count: 60_000)
        return Array(jpeg[..<afterEXIF]) + Array(repeating: segment, count: count).flatMap { $0 } + Array(jpeg[afterEXIF...])
    }
}
