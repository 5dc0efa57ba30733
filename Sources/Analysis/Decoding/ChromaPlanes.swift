/// The colour of an image: its Cb and Cr planes as JPEG stores them (full-range BT.601, 128 = no
/// colour), in the luma's orientation, at whatever resolution the decoder had them (JPEG and
/// HEVC usually keep half the luma's in each direction).
public struct ChromaPlanes: Sendable, Equatable {
    public var cb: GrayImage
    public var cr: GrayImage

    public init(cb: GrayImage, cr: GrayImage) {
        self.cb = cb
        self.cr = cr
    }

    public func oriented(_ orientation: Int) -> ChromaPlanes {
        ChromaPlanes(cb: cb.oriented(orientation), cr: cr.oriented(orientation))
    }

    /// From interleaved 8-bit RGB rows, averaged over 2×2 blocks (half resolution, as JPEG's
    /// usual subsampling: colour needs no more, and it saves three quarters of the memory).
    public static func fromRGB(_ rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, rowBytes: Int) -> ChromaPlanes {
        let outWidth = (width + 1) / 2, outHeight = (height + 1) / 2
        var cb = [UInt8](repeating: 128, count: outWidth * outHeight), cr = cb
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                var sumCb = 0.0, sumCr = 0.0, n = 0.0
                for sy in (2 * y)..<min(2 * y + 2, height) {
                    for sx in (2 * x)..<min(2 * x + 2, width) {
                        let p = sy * rowBytes + 3 * sx
                        let r = Double(rgb[p]), g = Double(rgb[p + 1]), b = Double(rgb[p + 2])
                        sumCb += -0.168736 * r - 0.331264 * g + 0.5 * b
                        sumCr += 0.5 * r - 0.418688 * g - 0.081312 * b
                        n += 1
                    }
                }
                cb[y * outWidth + x] = UInt8(max(0, min(255, (128 + sumCb / n).rounded())))
                cr[y * outWidth + x] = UInt8(max(0, min(255, (128 + sumCr / n).rounded())))
            }
        }
        return ChromaPlanes(cb: GrayImage(width: outWidth, height: outHeight, pixels: cb),
                            cr: GrayImage(width: outWidth, height: outHeight, pixels: cr))
    }
}

/// What a decoder gives the features: the luma every hash is computed from, and the colour
/// when the image has any (nil for grayscale images and the few layouts read as gray only).
public struct DecodedPixels: Sendable {
    public var luma: GrayImage
    public var chroma: ChromaPlanes?

    public init(luma: GrayImage, chroma: ChromaPlanes?) {
        self.luma = luma
        self.chroma = chroma
    }

    public func oriented(_ orientation: Int) -> DecodedPixels {
        DecodedPixels(luma: luma.oriented(orientation), chroma: chroma?.oriented(orientation))
    }

    /// From packed 8-bit RGB: luma with JPEG's own weights (BT.601 on the stored values, so a
    /// PNG or TIFF copy's tones match its JPEG's) and half-resolution chroma.
    public static func fromRGB(_ rgb: [UInt8], width: Int, height: Int) -> DecodedPixels {
        var pixels = [UInt8](repeating: 0, count: width * height)
        rgb.withUnsafeBufferPointer { source in
            for index in pixels.indices {
                let r = Int(source[3 * index]), g = Int(source[3 * index + 1]), b = Int(source[3 * index + 2])
                pixels[index] = UInt8((19595 * r + 38470 * g + 7471 * b + 32768) >> 16)
            }
        }
        let chroma = rgb.withUnsafeBufferPointer { ChromaPlanes.fromRGB($0, width: width, height: height, rowBytes: width * 3) }
        return DecodedPixels(luma: GrayImage(width: width, height: height, pixels: pixels), chroma: chroma)
    }
}
