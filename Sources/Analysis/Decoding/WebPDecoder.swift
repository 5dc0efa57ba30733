import CWebP

/// Decodes WebP with libwebp, scaled inside the decoder to the smallest size whose short side
/// reaches the target, to its luma (Y) and chroma (U, V) planes: no colour conversion, only
/// libwebp's video range expanded to JPEG's full range (`VideoRange`).
public enum WebPDecoder {
    public static func decode(_ bytes: [UInt8], path: String, minShortSide: Int, maxPixels: Int) throws(AnalysisFailure) -> (DecodedPixels, width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0
        let known = bytes.withUnsafeBufferPointer { WebPGetInfo($0.baseAddress, $0.count, &width, &height) }
        guard known != 0, width > 0, height > 0 else { throw AnalysisFailure(.corrupt, "\(path): WebP header is unreadable") }
        guard Int(width) * Int(height) <= maxPixels else {
            throw AnalysisFailure(.tooLarge, "\(path): \(width)x\(height) is \(Int(width) * Int(height) / 1_000_000) MP, over the \(maxPixels / 1_000_000) MP limit (raise --max-megapixels to analyse it)")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw AnalysisFailure(.internal, "libwebp version mismatch") }
        let short = min(Int(width), Int(height))
        if short > minShortSide {
            let scale = Double(minShortSide) / Double(short)
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(max(1, (Double(width) * scale).rounded()))
            config.options.scaled_height = Int32(max(1, (Double(height) * scale).rounded()))
        }
        config.output.colorspace = MODE_YUV
        let status = bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        defer { WebPFreeDecBuffer(&config.output) }
        guard status == VP8_STATUS_OK else {
            throw AnalysisFailure(.corrupt, "\(path): WebP data is damaged (libwebp status \(status.rawValue))")
        }
        let outWidth = Int(config.output.width), outHeight = Int(config.output.height)
        let yuv = config.output.u.YUVA
        guard let luma = yuv.y else { throw AnalysisFailure(.corrupt, "\(path): WebP decoded to nothing") }
        // U and V are at half the luma's resolution (rounded up), as VP8 stores them.
        var chroma: ChromaPlanes?
        if let u = yuv.u, let v = yuv.v {
            let chromaWidth = (outWidth + 1) / 2, chromaHeight = (outHeight + 1) / 2
            var cb = GrayImage(plane: u, width: chromaWidth, height: chromaHeight, stride: Int(yuv.u_stride))
            var cr = GrayImage(plane: v, width: chromaWidth, height: chromaHeight, stride: Int(yuv.v_stride))
            cb.map(through: VideoRange.chroma)
            cr.map(through: VideoRange.chroma)
            chroma = ChromaPlanes(cb: cb, cr: cr)
        }
        var pixels = GrayImage(plane: luma, width: outWidth, height: outHeight, stride: Int(yuv.y_stride))
        pixels.map(through: VideoRange.luma)
        return (DecodedPixels(luma: pixels, chroma: chroma), Int(width), Int(height))
    }

    /// Encodes 8-bit RGB as lossy WebP (sample libraries and tests).
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Float) -> [UInt8]? {
        var output: UnsafeMutablePointer<UInt8>?
        let size = rgb.withUnsafeBufferPointer { WebPEncodeRGB($0.baseAddress, Int32(width), Int32(height), Int32(width * 3), quality, &output) }
        guard size > 0, let output else { return nil }
        defer { WebPFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
