/// Samples stored in video range ("studio swing", BT.601 limited: luma 16–235, chroma 16–240
/// about 128) expanded to the full range JPEG's YCbCr uses (0–255), which is what every feature
/// and colour check reads.
///
/// libwebp hands lossy and lossless WebP alike out in video range when asked for YUV
/// (`MODE_YUV`, VP8's own colour space). Taken as stored, a WebP copy of a JPEG had its dark
/// levels lifted and its bright ones lowered (a 36 ground read 48) and its chroma shrunk by an
/// eighth: invisible to pHashes and ranked layouts, which any monotone tone map leaves alone,
/// but not to the absolute colour checks (a plain graphic's ground colour, `ColourMask`'s
/// tolerance of 12 levels), which then took a WebP crop of a wallpaper for a recoloured one.
public enum VideoRange {
    /// Luma: 16 → 0, 235 → 255, clamped outside.
    public static let luma: [UInt8] = (0..<256).map { UInt8(clamping: Int(((Double($0) - 16) * 255 / 219).rounded())) }
    /// Chroma: 128 stays 128, 16 → 0, 240 → 255, clamped outside.
    public static let chroma: [UInt8] = (0..<256).map { UInt8(clamping: Int(((Double($0) - 128) * 255 / 224 + 128).rounded())) }
}

extension GrayImage {
    /// Every sample mapped through `table` (256 entries: `VideoRange.luma` or `.chroma`).
    mutating func map(through table: [UInt8]) {
        table.withUnsafeBufferPointer { table in
            pixels.withUnsafeMutableBufferPointer { pixels in
                for index in pixels.indices { pixels[index] = table[Int(pixels[index])] }
            }
        }
    }
}
