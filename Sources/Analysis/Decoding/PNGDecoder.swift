import CPNG

/// Decodes PNGs with libpng's simplified API to 8-bit RGB (16-bit, palette and alpha images
/// are converted by libpng), then to luma and half-resolution chroma. PNG has no reduced-size decode, so the pixel limit is
/// checked from the header first.
public enum PNGDecoder {
    public static func decode(_ bytes: [UInt8], path: String, maxPixels: Int) throws(AnalysisFailure) -> DecodedPixels {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let began = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw AnalysisFailure(.corrupt, "\(path): PNG header is unreadable: \(message(&image))") }
        defer { png_image_free(&image) }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0 else { throw AnalysisFailure(.corrupt, "\(path): PNG has no pixels") }
        guard width * height <= maxPixels else {
            throw AnalysisFailure(.tooLarge, "\(path): \(width)x\(height) is \(width * height / 1_000_000) MP, over the \(maxPixels / 1_000_000) MP limit (raise --max-megapixels to analyse it)")
        }
        // RGB, then luma with JPEG's own weights (`DecodedPixels.fromRGB`): libpng's gray
        // conversion is gamma-correct, which would make a PNG copy's tones differ from its JPEG.
        image.format = UInt32(PNG_FORMAT_RGB)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        // Transparent pixels are composited on mid gray, so alpha edits do not read as black.
        var background = png_color(red: 128, green: 128, blue: 128)
        let finished = rgb.withUnsafeMutableBytes {
            png_image_finish_read(&image, &background, $0.baseAddress, Int32(width * 3), nil)
        }
        guard finished != 0 else { throw AnalysisFailure(.corrupt, "\(path): PNG data is damaged: \(message(&image))") }
        return DecodedPixels.fromRGB(rgb, width: width, height: height)
    }

    private static func message(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Encodes 8-bit RGB as PNG (sample libraries and tests).
    public static func encode(rgb: [UInt8], width: Int, height: Int) -> [UInt8]? {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_RGB)
        var size = 0
        let sized = rgb.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, Int32(width * 3), nil) }
        guard sized != 0, size > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBytes { target in
            rgb.withUnsafeBytes { png_image_write_to_memory(&image, target.baseAddress, &size, 0, $0.baseAddress, Int32(width * 3), nil) }
        }
        return written != 0 ? Array(out.prefix(size)) : nil
    }
}
