import Analysis

/// Pixels that compress like a 12 MP camera photo. `SyntheticPhoto` alone is smooth and makes
/// JPEGs a fraction of a camera's size; a decoder's cost is mostly entropy decoding, so the
/// benchmark's files need a camera's bytes per pixel. On top of the enlarged synthetic scene
/// come texture a few pixels wide (foliage, fabric, gravel), stronger in some regions than
/// others as in real scenes, and sensor noise: fine in luma, blotchy in chroma.
enum CameraPhoto {
    /// Texture amplitudes (in 8-bit levels) tuned so that quality 92, 4:2:0 lands near 4 MB at
    /// 4000x3000, the middle of what 12 MP cameras write.
    static let fineTexture: Float = 40
    static let coarseTexture: Float = 20
    static let lumaNoise: Float = 7
    static let chromaNoise: Float = 2.5

    /// The scene is synthesised at a quarter of the size (the costly part) and enlarged.
    static let sceneReduction = 4

    static func make(seed: UInt64, width: Int, height: Int) -> RGBImage {
        let scene = SyntheticPhoto.make(seed: seed, width: max(1, (width + sceneReduction - 1) / sceneReduction),
                                        height: max(1, (height + sceneReduction - 1) / sceneReduction))
        let base = Lattice(image: scene, spacing: sceneReduction)
        var random = SplitMix64(seed: seed ^ 0xC0FF_EE00_D15E_A5E5)
        let fine = Lattice.random(width: width, height: height, spacing: 2, using: &random)
        let coarse = Lattice.random(width: width, height: height, spacing: 5, using: &random)
        // Where the scene is busy: smooth over a few hundred pixels, so skies stay clean.
        let busyness = Lattice.random(width: width, height: height, spacing: 300, using: &random)
        let chroma = Lattice.random(width: width, height: height, spacing: 3, channels: 2, using: &random)

        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var red = [Float](repeating: 0, count: width), green = red, blue = red
        var fineRow = red, coarseRow = red, busyRow = red, chromaRed = red, chromaBlue = red
        for y in 0..<height {
            base.sampleRow(y, channel: 0, into: &red)
            base.sampleRow(y, channel: 1, into: &green)
            base.sampleRow(y, channel: 2, into: &blue)
            fine.sampleRow(y, channel: 0, into: &fineRow)
            coarse.sampleRow(y, channel: 0, into: &coarseRow)
            busyness.sampleRow(y, channel: 0, into: &busyRow)
            chroma.sampleRow(y, channel: 0, into: &chromaRed)
            chroma.sampleRow(y, channel: 1, into: &chromaBlue)
            pixels.withUnsafeMutableBufferPointer { out in
                var offset = y * width * 3
                for x in 0..<width {
                    // 0.15 (nearly flat) to 1 (busy), mostly busy: cameras are pointed at things.
                    let busy = 0.15 + 0.85 * min(1, max(0, busyRow[x] + 0.6))
                    let texture = busy * (fineTexture * fineRow[x] + coarseTexture * coarseRow[x])
                    let noise = lumaNoise * triangular(random.next())
                    let luma = texture + noise
                    out[offset] = clamp(red[x] + luma + chromaNoise * chromaRed[x])
                    out[offset + 1] = clamp(green[x] + luma)
                    out[offset + 2] = clamp(blue[x] + luma + chromaNoise * chromaBlue[x])
                    offset += 3
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Roughly bell-shaped noise in -1...1 from one random word: the sum of two uniforms.
    private static func triangular(_ bits: UInt64) -> Float {
        Float(bits & 0xFFFF) / 65535 + Float((bits >> 16) & 0xFFFF) / 65535 - 1
    }

    private static func clamp(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }
}
