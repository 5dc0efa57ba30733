/// A small colour JPEG of a photo, as a person sees it (EXIF orientation applied), for the
/// HTML review (`cull groups --format html`). Decoded at reduced size where the format allows
/// (JPEG's DCT scaling, WebP's scaler, HEIF's thumbnail), so a review of many photos costs
/// little more than reading them.
public enum ReviewThumbnail {
    /// JPEG bytes of the photo in `bytes`, its long side `side` pixels (smaller images keep
    /// their size). Throws the same failures analysis would (unsupported, corrupt, too large).
    public static func make(_ bytes: [UInt8], path: String, side: Int = 200, maxPixels: Int = 200_000_000) throws(AnalysisFailure) -> [UInt8] {
        let pixels = try decode(bytes, path: path, side: side, maxPixels: maxPixels)
        let luma = pixels.luma
        let scale = min(1, Double(side) / Double(max(luma.width, luma.height)))
        let width = max(1, Int((Double(luma.width) * scale).rounded())), height = max(1, Int((Double(luma.height) * scale).rounded()))
        let y = luma.resized(width: width, height: height)
        let cb = pixels.chroma.map { $0.cb.resized(width: width, height: height) }
        let cr = pixels.chroma.map { $0.cr.resized(width: width, height: height) }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            let l = Double(y[i]), u = (cb?[i]).map { Double($0) - 128 } ?? 0, v = (cr?[i]).map { Double($0) - 128 } ?? 0
            // Full-range BT.601, as JPEG stores colour.
            rgb[3 * i] = clamp(l + 1.402 * v)
            rgb[3 * i + 1] = clamp(l - 0.344136 * u - 0.714136 * v)
            rgb[3 * i + 2] = clamp(l + 1.772 * u)
        }
        do {
            return try JPEGEncoder.encode(rgb: rgb, width: width, height: height, quality: 80)
        } catch {
            throw AnalysisFailure(.corrupt, "\(path): the review thumbnail could not be encoded")
        }
    }

    private static func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }

    private static func decode(_ bytes: [UInt8], path: String, side: Int, maxPixels: Int) throws(AnalysisFailure) -> DecodedPixels {
        guard let format = PhotoFormat.detectRefined(bytes) else { throw AnalysisFailure(.unsupported, "\(path): not a recognised image format") }
        switch format {
        case .jpeg:
            let header: JPEGDecoder.Header
            do { header = try JPEGDecoder.header(bytes) } catch { throw error.naming(path) }
            guard header.width * header.height <= maxPixels else { throw AnalysisFailure(.tooLarge, "\(path): too large to show") }
            let orientation = JPEGMetadataReader.read(bytes).orientation
            do { return try JPEGDecoder.decode(bytes, minShortSide: side).oriented(orientation) } catch { throw error.naming(path) }
        case .png:
            return try PNGDecoder.decode(bytes, path: path, maxPixels: maxPixels)
        case .webp:
            return try WebPDecoder.decode(bytes, path: path, minShortSide: side, maxPixels: maxPixels).0
        case .heif:
            let decoded = try HEIFDecoder.decode(bytes, path: path, maxPixels: maxPixels, usePreviews: true)
            return DecodedPixels(luma: decoded.image, chroma: decoded.chroma)
        case .tiff:
            let decoded = try TIFFDecoder.decode(bytes, path: path, minShortSide: side, maxPixels: maxPixels)
            return decoded.pixels.oriented(decoded.orientation)
        case .raw:
            let decoded = try RAWDecoder.decode(bytes, path: path, minShortSide: side, maxPixels: maxPixels, usePreviews: true)
            return decoded.pixels.oriented(decoded.orientation)
        default:
            throw AnalysisFailure(.unsupported, "\(path): \(format.rawValue) images cannot be shown")
        }
    }
}
