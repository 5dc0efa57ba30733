import CTurboJPEG

/// Decodes JPEGs with libjpeg-turbo at reduced size: DCT scaling (1/8, 1/4, 3/8, 1/2, ...)
/// happens inside the IDCT, so a 12 MP photo decoded at 1/8 costs a fraction of a full decode
/// and never allocates the full image.
public enum JPEGDecoder {
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var colorspace: Int32
    }

    /// Reads the frame header (size, colorspace) without decoding pixels.
    public static func header(_ bytes: [UInt8]) throws(AnalysisFailure) -> Header {
        let handle = try makeHandle()
        defer { tjDestroy(handle) }
        return try readHeader(handle, bytes)
    }

    /// Decodes to grayscale at the smallest DCT scale whose short side is at least
    /// `minShortSide` (or full size when the image is smaller than that).
    public static func decodeGray(_ bytes: [UInt8], minShortSide: Int) throws(AnalysisFailure) -> GrayImage {
        let handle = try makeHandle()
        defer { tjDestroy(handle) }
        let header = try readHeader(handle, bytes)
        let (width, height) = scaledSize(width: header.width, height: header.height, minShortSide: minShortSide)

        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        let channels = isCMYK ? 4 : 1
        let format = isCMYK ? TJPF_CMYK : TJPF_GRAY
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        // LIMITSCANS refuses progressive files with absurd scan counts (a decode-time bomb).
        let flags = TJFLAG_LIMITSCANS
        let rc = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(handle, source.baseAddress, UInt(source.count), target.baseAddress,
                              Int32(width), 0, Int32(height), Int32(format.rawValue), Int32(flags))
            }
        }
        if rc != 0 {
            let message = errorMessage(handle)
            // Warnings (a few stray bytes, say) leave a usable image; a premature end does not:
            // the missing part is filled with gray and the features would describe the filler.
            let fatal = tjGetErrorCode(handle) == Int32(TJERR_FATAL.rawValue) || message.contains("Premature end")
            if fatal { throw AnalysisFailure(.corrupt, "JPEG data is damaged: \(message)") }
        }
        if isCMYK { pixels = cmykToGray(pixels, inverted: hasAdobeInvertedCMYK(bytes)) }
        return GrayImage(width: width, height: height, pixels: pixels)
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
        return Header(width: Int(width), height: Int(height), colorspace: colorspace)
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
