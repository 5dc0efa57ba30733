import CTurboJPEG

/// Decodes JPEGs with libjpeg-turbo at reduced size: DCT scaling (1/8, 1/4, 3/8, 1/2, ...)
/// happens inside the IDCT, so a 12 MP photo decoded at 1/8 costs a fraction of a full decode
/// and never allocates the full image.
public enum JPEGDecoder {
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var colorspace: Int32
        public var subsampling: Int32 = Int32(TJSAMP_GRAY.rawValue)
    }

    /// Reads the frame header (size, colorspace) without decoding pixels.
    public static func header(_ bytes: [UInt8]) throws(AnalysisFailure) -> Header {
        let handle = try makeHandle()
        defer { tjDestroy(handle) }
        return try readHeader(handle, bytes)
    }

    /// Decodes at the smallest DCT scale whose short side is at least `minShortSide` (or full
    /// size when the image is smaller than that): the luma, and for YCbCr files the chroma
    /// planes as stored (raw planes: no upsampling or colour conversion is spent on them).
    /// Grayscale, CMYK and YCCK files give luma only.
    public static func decode(_ bytes: [UInt8], minShortSide: Int) throws(AnalysisFailure) -> DecodedPixels {
        let handle = try makeHandle()
        defer { tjDestroy(handle) }
        let header = try readHeader(handle, bytes)
        let (width, height) = scaledSize(width: header.width, height: header.height, minShortSide: minShortSide)
        let subsampling = header.subsampling
        if header.colorspace == Int32(TJCS_YCbCr.rawValue), subsampling >= 0, subsampling != Int32(TJSAMP_GRAY.rawValue) {
            return try decodePlanes(handle, bytes, width: width, height: height, subsampling: subsampling)
        }
        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        let channels = isCMYK ? 4 : 1
        let format = isCMYK ? TJPF_CMYK : TJPF_GRAY
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let rc = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(handle, source.baseAddress, UInt(source.count), target.baseAddress,
                              Int32(width), 0, Int32(height), Int32(format.rawValue), Int32(flags))
            }
        }
        try check(rc, handle)
        if isCMYK { pixels = cmykToGray(pixels, inverted: hasAdobeInvertedCMYK(bytes)) }
        return DecodedPixels(luma: GrayImage(width: width, height: height, pixels: pixels), chroma: nil)
    }

    /// LIMITSCANS refuses progressive files with absurd scan counts (a decode-time bomb).
    private static let flags = TJFLAG_LIMITSCANS

    /// A YCbCr file decoded to its three planes at the scaled size. The luma plane is the same
    /// luma a grayscale decode gives (libjpeg-turbo's gray output of a YCbCr file is its Y).
    private static func decodePlanes(_ handle: tjhandle, _ bytes: [UInt8], width: Int, height: Int, subsampling: Int32) throws(AnalysisFailure) -> DecodedPixels {
        let sizes = (0..<3).map { (Int(tjPlaneWidth(Int32($0), Int32(width), subsampling)), Int(tjPlaneHeight(Int32($0), Int32(height), subsampling))) }
        guard sizes.allSatisfy({ $0.0 > 0 && $0.1 > 0 }) else { throw AnalysisFailure(.corrupt, "JPEG has an unknown chroma subsampling") }
        var y = [UInt8](repeating: 0, count: sizes[0].0 * sizes[0].1)
        var cb = [UInt8](repeating: 128, count: sizes[1].0 * sizes[1].1)
        var cr = [UInt8](repeating: 128, count: sizes[2].0 * sizes[2].1)
        var strides = sizes.map { Int32($0.0) }
        let rc = bytes.withUnsafeBufferPointer { source in
            y.withUnsafeMutableBufferPointer { y in
                cb.withUnsafeMutableBufferPointer { cb in
                    cr.withUnsafeMutableBufferPointer { cr in
                        var planes: [UnsafeMutablePointer<UInt8>?] = [y.baseAddress, cb.baseAddress, cr.baseAddress]
                        return planes.withUnsafeMutableBufferPointer { planes in
                            strides.withUnsafeMutableBufferPointer { strides in
                                tjDecompressToYUVPlanes(handle, source.baseAddress, UInt(source.count), planes.baseAddress,
                                                        Int32(width), strides.baseAddress, Int32(height), Int32(flags))
                            }
                        }
                    }
                }
            }
        }
        try check(rc, handle)
        // Planes are padded to whole chroma blocks: keep the image's own width and height, and
        // the chroma that covers them.
        func crop(_ plane: [UInt8], _ size: (Int, Int), _ keptWidth: Int, _ keptHeight: Int) -> GrayImage {
            guard keptWidth != size.0 || keptHeight != size.1 else { return GrayImage(width: size.0, height: size.1, pixels: plane) }
            var out = [UInt8](repeating: 0, count: keptWidth * keptHeight)
            for row in 0..<keptHeight { out[(row * keptWidth)..<((row + 1) * keptWidth)] = plane[(row * size.0)..<(row * size.0 + keptWidth)] }
            return GrayImage(width: keptWidth, height: keptHeight, pixels: out)
        }
        let chromaWidth = max(1, (width * sizes[1].0 + sizes[0].0 - 1) / sizes[0].0)
        let chromaHeight = max(1, (height * sizes[1].1 + sizes[0].1 - 1) / sizes[0].1)
        return DecodedPixels(luma: crop(y, sizes[0], width, height),
                             chroma: ChromaPlanes(cb: crop(cb, sizes[1], min(chromaWidth, sizes[1].0), min(chromaHeight, sizes[1].1)),
                                                  cr: crop(cr, sizes[2], min(chromaWidth, sizes[2].0), min(chromaHeight, sizes[2].1))))
    }

    /// Warnings (a few stray bytes, say) leave a usable image; a premature end does not: the
    /// missing part is filled with gray and the features would describe the filler.
    private static func check(_ rc: Int32, _ handle: tjhandle) throws(AnalysisFailure) {
        guard rc != 0 else { return }
        let message = errorMessage(handle)
        let fatal = tjGetErrorCode(handle) == Int32(TJERR_FATAL.rawValue) || message.contains("Premature end")
        if fatal { throw AnalysisFailure(.corrupt, "JPEG data is damaged: \(message)") }
    }

    /// The DCT-scaled size for a target short side: libjpeg-turbo's factors, smallest first.
    static func scaledSize(width: Int, height: Int, minShortSide: Int) -> (Int, Int) {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return (width, height) }
        var best = (width, height)
        var bestArea = width * height
        for index in 0..<Int(count) {
            let factor = factors[index]
            let w = (width * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
            let h = (height * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
            guard min(w, h) >= min(minShortSide, min(width, height)) else { continue }
            if w * h < bestArea { best = (w, h); bestArea = w * h }
        }
        return best
    }

    private static func makeHandle() throws(AnalysisFailure) -> tjhandle {
        guard let handle = tjInitDecompress() else {
            throw AnalysisFailure(.internal, "libjpeg-turbo could not allocate a decompressor")
        }
        return handle
    }

    private static func readHeader(_ handle: tjhandle, _ bytes: [UInt8]) throws(AnalysisFailure) -> Header {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let rc = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard rc == 0, width > 0, height > 0 else {
            throw AnalysisFailure(.corrupt, "JPEG header is unreadable: \(errorMessage(handle))")
        }
        return Header(width: Int(width), height: Int(height), colorspace: colorspace, subsampling: subsampling)
    }

    private static func errorMessage(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown libjpeg-turbo error" }
        return String(cString: text)
    }

    /// Luma from CMYK. Adobe writes CMYK JPEGs inverted (0 = full ink), as most files are.
    private static func cmykToGray(_ cmyk: [UInt8], inverted: Bool) -> [UInt8] {
        var gray = [UInt8](repeating: 0, count: cmyk.count / 4)
        for index in gray.indices {
            var c = Double(cmyk[index * 4]), m = Double(cmyk[index * 4 + 1])
            var y = Double(cmyk[index * 4 + 2]), k = Double(cmyk[index * 4 + 3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            // Inverted values: 255 means no ink, so the channel is already "light".
            let r = c * k / 255, g = m * k / 255, b = y * k / 255
            gray[index] = UInt8(max(0, min(255, (0.299 * r + 0.587 * g + 0.114 * b).rounded())))
        }
        return gray
    }

    /// Whether an Adobe APP14 segment is present (its CMYK is stored inverted).
    private static func hasAdobeInvertedCMYK(_ bytes: [UInt8]) -> Bool {
        var offset = 2
        for _ in 0..<64 {
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF else { return false }
            let marker = bytes[offset + 1]
            if marker == 0xDA { return false }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if marker == 0xEE, length >= 7, offset + 9 <= bytes.count,
               bytes[(offset + 4)..<(offset + 9)].elementsEqual(Array("Adobe".utf8)) {
                return true
            }
            offset += 2 + length
        }
        return false
    }
}
