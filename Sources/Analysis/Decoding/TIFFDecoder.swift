import CTIFF

/// Decodes TIFF photos (exports from raw developers and scanners) with libtiff: 8- and 16-bit,
/// RGB, grayscale, palette, YCbCr and CMYK, strips and tiles, whatever libtiff's RGBA interface
/// converts. The first image of the file is the photo.
///
/// TIFF has no reduced-size decode, and a scan's TIFF can be 100 MP: so it is read in bands of
/// rows, each folded at once into block averages of `scale`² pixels, the largest integer scale
/// that keeps the short side at least `minShortSide` (as the JPEG decoder's DCT scaling does).
/// Memory is one band (about a million pixels) and the reduced image, whatever the file's size.
/// Rows come as stored (no flips by libtiff); the Orientation tag is applied afterwards, as for
/// JPEG's EXIF orientation.
public enum TIFFDecoder {
    public struct Decoded: Sendable {
        public var pixels: DecodedPixels
        /// The stored image's size, before orientation.
        public var width: Int
        public var height: Int
        public var orientation: Int
        /// Camera, capture time and orientation from the file's own tags and its EXIF directory.
        public var metadata = PhotoMetadata()
    }

    /// libtiff's default handlers print to stderr from any thread; set once, before any decode.
    static let silenced: Bool = {
        cull_tiff_silence()
        return true
    }()

    /// Pixels libtiff converts at once: a band of rows.
    static let bandPixels = 1 << 20

    public static func decode(_ bytes: [UInt8], path: String, minShortSide: Int, maxPixels: Int) throws(AnalysisFailure) -> Decoded {
        _ = silenced
        let result: Result<Decoded, AnalysisFailure> = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return .failure(AnalysisFailure(.corrupt, "\(path): empty TIFF")) }
            var memory = cull_tiff_memory(data: base, size: tmsize_t(buffer.count), offset: 0)
            return withUnsafeMutablePointer(to: &memory) { memory in
                guard let tiff = cull_tiff_open(memory) else {
                    return .failure(AnalysisFailure(.corrupt, "\(path): TIFF header or first directory is unreadable"))
                }
                defer { TIFFClose(tiff) }
                return Result { () throws(AnalysisFailure) in
                    var decoded = try decode(tiff, path: path, minShortSide: minShortSide, maxPixels: maxPixels)
                    // Last: reading the EXIF directory leaves the image's directory.
                    decoded.metadata = metadata(tiff, orientation: decoded.orientation)
                    return decoded
                }
            }
        }
        return try result.get()
    }

    private static func decode(_ tiff: OpaquePointer, path: String, minShortSide: Int, maxPixels: Int) throws(AnalysisFailure) -> Decoded {
        var width32: UInt32 = 0, height32: UInt32 = 0
        guard cull_tiff_uint32(tiff, UInt32(TIFFTAG_IMAGEWIDTH), &width32) == 1, cull_tiff_uint32(tiff, UInt32(TIFFTAG_IMAGELENGTH), &height32) == 1,
              width32 > 0, height32 > 0 else {
            throw AnalysisFailure(.corrupt, "\(path): TIFF has no image size")
        }
        let width = Int(width32), height = Int(height32)
        guard width * height <= maxPixels else {
            throw AnalysisFailure(.tooLarge, "\(path): \(width)x\(height) is \(width * height / 1_000_000) MP, over the \(maxPixels / 1_000_000) MP limit (raise --max-megapixels to analyse it)")
        }
        var message = [CChar](repeating: 0, count: 1024)
        var image = TIFFRGBAImage()
        // stop = 1: a strip or tile that cannot be read fails the decode (by default libtiff
        // leaves it blank and goes on, which would make a truncated file look whole).
        guard TIFFRGBAImageOK(tiff, &message) == 1, TIFFRGBAImageBegin(&image, tiff, 1, &message) == 1 else {
            let why = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw AnalysisFailure(.unsupported, "\(path): a TIFF layout libtiff cannot convert (\(why))")
        }
        defer { TIFFRGBAImageEnd(&image) }
        // As stored: asking for the file's own orientation makes libtiff flip nothing.
        let orientation = (1...8).contains(Int(image.orientation)) ? Int(image.orientation) : 1
        image.req_orientation = image.orientation

        let scale = max(1, min(width, height) / max(1, minShortSide))
        let outWidth = width / scale, outHeight = height / scale
        var sums = [UInt32](repeating: 0, count: outWidth * outHeight * 3)
        let bandRows = max(scale, (max(1, bandPixels / width) / scale) * scale)
        var band = [UInt32](repeating: 0, count: width * bandRows)
        var row = 0
        while row < outHeight * scale {
            let rows = min(bandRows, outHeight * scale - row)
            image.row_offset = Int32(row)
            image.col_offset = 0
            let got = band.withUnsafeMutableBufferPointer { TIFFRGBAImageGet(&image, $0.baseAddress, width32, UInt32(rows)) }
            guard got == 1 else { throw AnalysisFailure(.corrupt, "\(path): TIFF data is damaged (rows \(row)–\(row + rows) unreadable)") }
            fold(band, rows: rows, firstRow: row, width: width, scale: scale, outWidth: outWidth, into: &sums)
            row += rows
        }
        var pixels = reducedPixels(sums, width: outWidth, height: outHeight, scale: scale)
        // A grayscale TIFF has no colour layout, as a grayscale JPEG has none.
        var photometric: UInt16 = 0
        if cull_tiff_uint16(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometric) == 1,
           photometric == UInt16(PHOTOMETRIC_MINISBLACK) || photometric == UInt16(PHOTOMETRIC_MINISWHITE) {
            pixels.chroma = nil
        }
        return Decoded(pixels: pixels, width: width, height: height, orientation: orientation)
    }

    /// Make, Model, Software and DateTime from the first directory, DateTimeOriginal (with its
    /// fraction and offset) from the EXIF directory it points to, all through libtiff.
    private static func metadata(_ tiff: OpaquePointer, orientation: Int) -> PhotoMetadata {
        var metadata = PhotoMetadata()
        metadata.orientation = orientation
        metadata.cameraMake = string(tiff, TIFFTAG_MAKE)
        metadata.cameraModel = string(tiff, TIFFTAG_MODEL)
        metadata.software = string(tiff, TIFFTAG_SOFTWARE)
        metadata.modifyTime = string(tiff, TIFFTAG_DATETIME)
        var exifOffset: UInt64 = 0
        guard cull_tiff_uint64(tiff, UInt32(TIFFTAG_EXIFIFD), &exifOffset) == 1, exifOffset > 0,
              TIFFReadEXIFDirectory(tiff, exifOffset) == 1 else { return metadata }
        metadata.captureTime = PhotoMetadata.captureTime(original: string(tiff, EXIFTAG_DATETIMEORIGINAL),
                                                         subSeconds: string(tiff, EXIFTAG_SUBSECTIMEORIGINAL),
                                                         offset: string(tiff, EXIFTAG_OFFSETTIMEORIGINAL))
        return metadata
    }

    private static func string(_ tiff: OpaquePointer, _ tag: Int32) -> String? {
        var value: UnsafePointer<CChar>?
        guard cull_tiff_string(tiff, UInt32(tag), &value) == 1, let value else { return nil }
        var length = 0
        while length < 4096, value[length] != 0 { length += 1 }
        let text = String(decoding: UnsafeRawBufferPointer(start: value, count: length), as: UTF8.self).trimmingSpaces()
        return text.isEmpty ? nil : text
    }

    /// Adds a band's pixels (libtiff's packed ABGR, alpha composited on mid gray as PNG's is)
    /// to the block sums of the rows it covers.
    private static func fold(_ band: [UInt32], rows: Int, firstRow: Int, width: Int, scale: Int, outWidth: Int, into sums: inout [UInt32]) {
        band.withUnsafeBufferPointer { band in
            sums.withUnsafeMutableBufferPointer { sums in
                for y in 0..<rows {
                    let outRow = (firstRow + y) / scale
                    let source = y * width
                    for x in 0..<(outWidth * scale) {
                        let pixel = band[source + x]
                        var r = pixel & 0xFF, g = (pixel >> 8) & 0xFF, b = (pixel >> 16) & 0xFF
                        let alpha = pixel >> 24
                        if alpha < 255 {
                            r = (r * alpha + 128 * (255 - alpha)) / 255
                            g = (g * alpha + 128 * (255 - alpha)) / 255
                            b = (b * alpha + 128 * (255 - alpha)) / 255
                        }
                        let target = 3 * (outRow * outWidth + x / scale)
                        sums[target] += r
                        sums[target + 1] += g
                        sums[target + 2] += b
                    }
                }
            }
        }
    }

    /// Block averages as 8-bit RGB, then luma and chroma as for PNG.
    private static func reducedPixels(_ sums: [UInt32], width: Int, height: Int, scale: Int) -> DecodedPixels {
        let area = UInt32(scale * scale)
        return DecodedPixels.fromRGB(sums.map { UInt8(min(255, ($0 + area / 2) / area)) }, width: width, height: height)
    }
}
