/// An 8-bit grayscale image, row-major, no padding: what every feature is computed from.
public struct GrayImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "pixel buffer does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }

    /// Applies an EXIF orientation (1...8) so the image is the way a viewer shows it.
    public func oriented(_ orientation: Int) -> GrayImage {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let outWidth = swaps ? height : width
        let outHeight = swaps ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // (sx, sy): where in the stored image the displayed pixel (x, y) comes from.
                        let sx: Int, sy: Int
                        switch orientation {
                        case 2: sx = width - 1 - x; sy = y                       // mirrored
                        case 3: sx = width - 1 - x; sy = height - 1 - y          // rotated 180
                        case 4: sx = x; sy = height - 1 - y                      // flipped
                        case 5: sx = y; sy = x                                   // transposed
                        case 6: sx = y; sy = height - 1 - x                      // rotate 90 CW to view
                        case 7: sx = width - 1 - y; sy = height - 1 - x          // transversed
                        default: sx = width - 1 - y; sy = x                      // 8: rotate 90 CCW to view
                        }
                        target[y * outWidth + x] = source[sy * width + sx]
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// Area-averaging resize (each output pixel is the mean of the input pixels it covers,
    /// with fractional coverage at the edges): the anti-aliased reduction hashes need. Through
    /// a summed-area table, so the cost is one pass over the input plus the output's size.
    public func resized(width outWidth: Int, height outHeight: Int) -> [Float] {
        AreaSampler(self).cells(.full, columns: outWidth, rows: outHeight)
    }
}

extension GrayImage {
    /// One plane copied out of a decoder's buffer: `bits` per sample (above 8: little-endian
    /// 16-bit samples, as HDR HEIF stores them, scaled down to 8 bits), `stride` bytes per row.
    public init(plane base: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, bits: Int = 8) {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            let source = base + row * stride
            if bits <= 8 {
                for column in 0..<width { pixels[row * width + column] = source[column] }
            } else {
                let shift = bits - 8
                for column in 0..<width {
                    let value = Int(source[2 * column]) | Int(source[2 * column + 1]) << 8
                    pixels[row * width + column] = UInt8(min(255, value >> shift))
                }
            }
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// An area-averaged reduction whose short side is `minShortSide` (unchanged if already
    /// that small): for formats that cannot decode at reduced size, so every format feeds the
    /// features images of the same scale.
    public func reduced(minShortSide: Int) -> GrayImage {
        let short = min(width, height)
        guard short > minShortSide else { return self }
        let scale = Double(minShortSide) / Double(short)
        let newWidth = max(1, Int((Double(width) * scale).rounded()))
        let newHeight = max(1, Int((Double(height) * scale).rounded()))
        let values = resized(width: newWidth, height: newHeight)
        return GrayImage(width: newWidth, height: newHeight, pixels: values.map { UInt8(max(0, min(255, $0.rounded()))) })
    }
}
