import CLibRaw
import Foundation

/// Decodes camera raw files with LibRaw (Debian's libraw-dev): DNG, NEF, CR2, CR3, ARW, RAF,
/// ORF, RW2 and the other formats LibRaw reads.
///
/// With previews allowed, the camera's embedded preview stands in for the sensor data when
/// `PreviewPolicy` accepts it (large enough, the same frame), exactly as a JPEG's EXIF
/// thumbnail does: the photo is marked `fromPreview`, and grouping verifies it from the sensor
/// data before trusting it. Otherwise, or when the preview is refused or unreadable, the raw
/// data is developed at half size (LibRaw's `half_size`: one pixel per 2×2 sensor block, no
/// demosaicing; in full for a raw too small for that), with the camera's white balance, 8 bits.
///
/// Orientation: LibRaw is told not to rotate (`user_flip = 0`); the file's orientation is
/// applied afterwards, as for JPEG's EXIF orientation.
public enum RAWDecoder {
    public struct Decoded: Sendable {
        public var pixels: DecodedPixels
        /// The sensor image's size as the camera frames it, before orientation.
        public var width: Int
        public var height: Int
        public var orientation: Int
        public var metadata: PhotoMetadata
        public var fromPreview: Bool
    }

    /// Debian's LibRaw is built with OpenMP: each developing thread would start a team of
    /// one thread per core, on top of the worker's own compute threads (which already use
    /// every core, one photo each). One OpenMP thread per caller: set through `dlsym`, as
    /// libgomp comes with libraw.so rather than being linked by cull.
    static let oneOpenMPThread: (@convention(c) (Int32) -> Void)? = {
        guard let symbol = dlsym(nil, "omp_set_num_threads") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
    }()

    /// A LibRaw handle that keeps quiet: by default LibRaw prints "Unexpected end of file" to
    /// stderr, from any thread, whenever it reads past the data it was given (a damaged file,
    /// or on purpose: the head of a file, `previewFromHead`). cull reports what fails itself.
    static func openLibRaw() -> UnsafeMutablePointer<libraw_data_t>? {
        guard let raw = libraw_init(0) else { return nil }
        libraw_set_dataerror_handler(raw, { _, _, _ in }, nil)
        return raw
    }

    public static func decode(_ bytes: [UInt8], path: String, minShortSide: Int, maxPixels: Int,
                              usePreviews: Bool) throws(AnalysisFailure) -> Decoded {
        oneOpenMPThread?(1)  // this thread's OpenMP setting: cheap, and right whichever thread calls
        guard let raw = openLibRaw() else { throw AnalysisFailure(.internal, "\(path): LibRaw could not start") }
        defer { libraw_close(raw) }
        // LibRaw reads the buffer from open to the end of the decode: all of it happens inside
        // this closure. (libraw_open_buffer takes a non-const pointer but only reads.)
        let result: Result<Decoded, AnalysisFailure> = bytes.withUnsafeBytes { buffer in
            let opened = libraw_open_buffer(raw, UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count)
            guard opened == LIBRAW_SUCCESS.rawValue else {
                let kind: AnalysisFailure.Kind = opened == LIBRAW_FILE_UNSUPPORTED.rawValue ? .unsupported : .corrupt
                return .failure(AnalysisFailure(kind, "\(path): not a raw file LibRaw can read (\(message(opened)))"))
            }
            return Result { () throws(AnalysisFailure) in
                try decodeOpened(raw, path: path, minShortSide: minShortSide, maxPixels: maxPixels, usePreviews: usePreviews)
            }
        }
        return try result.get()
    }

    private static func decodeOpened(_ raw: UnsafeMutablePointer<libraw_data_t>, path: String, minShortSide: Int, maxPixels: Int,
                                     usePreviews: Bool) throws(AnalysisFailure) -> Decoded {
        let width = Int(raw.pointee.sizes.width), height = Int(raw.pointee.sizes.height)
        guard width > 0, height > 0 else { throw AnalysisFailure(.corrupt, "\(path): raw file has no image size") }
        guard width * height <= maxPixels else {
            throw AnalysisFailure(.tooLarge, "\(path): \(width)x\(height) is \(width * height / 1_000_000) MP, over the \(maxPixels / 1_000_000) MP limit (raise --max-megapixels to analyse it)")
        }
        let (orientation, metadata) = cameraDetails(raw)
        if usePreviews, let preview = preview(raw, width: width, height: height) {
            return Decoded(pixels: preview, width: width, height: height, orientation: orientation, metadata: metadata, fromPreview: true)
        }
        let pixels = try develop(raw, path: path, halfSize: min(width, height) / 2 >= minShortSide)
        return Decoded(pixels: pixels, width: width, height: height, orientation: orientation, metadata: metadata, fromPreview: false)
    }

    /// The embedded preview, decoded, if `PreviewPolicy` accepts it; nil means "develop the
    /// sensor data" (no preview, too small, another frame, or damaged).
    private static func preview(_ raw: UnsafeMutablePointer<libraw_data_t>, width: Int, height: Int) -> DecodedPixels? {
        guard libraw_unpack_thumb(raw) == LIBRAW_SUCCESS.rawValue else { return nil }
        let thumbnail = raw.pointee.thumbnail
        guard PreviewPolicy.accepts(previewWidth: Int(thumbnail.twidth), previewHeight: Int(thumbnail.theight), width: width, height: height) else {
            return nil
        }
        return decodedThumbnail(raw)
    }

    /// The preview LibRaw has unpacked, decoded (a JPEG, or a bitmap some cameras store); nil
    /// when damaged or of another kind.
    static func decodedThumbnail(_ raw: UnsafeMutablePointer<libraw_data_t>) -> DecodedPixels? {
        var error: Int32 = 0
        guard let image = libraw_dcraw_make_mem_thumb(raw, &error) else { return nil }
        defer { libraw_dcraw_clear_mem(image) }
        let data = UnsafeBufferPointer(start: cull_libraw_image_data(image), count: Int(image.pointee.data_size))
        switch image.pointee.type {
        case LIBRAW_IMAGE_JPEG:
            return try? JPEGDecoder.decode(Array(data), minShortSide: PreviewPolicy.minimumShortSide)
        case LIBRAW_IMAGE_BITMAP:
            return rgb(image, data)
        default:
            return nil
        }
    }

    /// The orientation the camera recorded and the metadata, the orientation included.
    static func cameraDetails(_ raw: UnsafeMutablePointer<libraw_data_t>) -> (orientation: Int, metadata: PhotoMetadata) {
        let orientation = exifOrientation(flip: Int(raw.pointee.sizes.flip))
        var metadata = self.metadata(raw)
        metadata.orientation = orientation
        return (orientation, metadata)
    }

    /// The sensor data developed, 8-bit RGB: at half size unless that would leave the short
    /// side under `minShortSide` (a small raw is demosaiced in full).
    private static func develop(_ raw: UnsafeMutablePointer<libraw_data_t>, path: String, halfSize: Bool) throws(AnalysisFailure) -> DecodedPixels {
        raw.pointee.params.half_size = halfSize ? 1 : 0
        raw.pointee.params.use_camera_wb = 1
        raw.pointee.params.output_bps = 8
        raw.pointee.params.user_flip = 0
        let unpacked = libraw_unpack(raw)
        guard unpacked == LIBRAW_SUCCESS.rawValue else {
            throw AnalysisFailure(.corrupt, "\(path): the raw data is damaged (\(message(unpacked)))")
        }
        let processed = libraw_dcraw_process(raw)
        guard processed == LIBRAW_SUCCESS.rawValue else {
            throw AnalysisFailure(.corrupt, "\(path): the raw data could not be developed (\(message(processed)))")
        }
        var error: Int32 = 0
        guard let image = libraw_dcraw_make_mem_image(raw, &error) else {
            throw AnalysisFailure(.corrupt, "\(path): the raw data could not be developed (\(message(error)))")
        }
        defer { libraw_dcraw_clear_mem(image) }
        let data = UnsafeBufferPointer(start: cull_libraw_image_data(image), count: Int(image.pointee.data_size))
        guard let pixels = rgb(image, data) else { throw AnalysisFailure(.unsupported, "\(path): LibRaw developed it to an image cull cannot read") }
        return pixels
    }

    /// An 8-bit RGB (or gray) bitmap from LibRaw as luma and chroma.
    private static func rgb(_ image: UnsafeMutablePointer<libraw_processed_image_t>, _ data: UnsafeBufferPointer<UInt8>) -> DecodedPixels? {
        let width = Int(image.pointee.width), height = Int(image.pointee.height), colors = Int(image.pointee.colors)
        guard image.pointee.bits == 8, colors == 3 || colors == 1, width > 0, height > 0, data.count >= width * height * colors else { return nil }
        let rgb = colors == 3 ? Array(data.prefix(width * height * 3)) : data.prefix(width * height).flatMap { [$0, $0, $0] }
        return DecodedPixels.fromRGB(rgb, width: width, height: height)
    }

    /// Camera, model and capture time as LibRaw reads them from the file's own metadata.
    static func metadata(_ raw: UnsafeMutablePointer<libraw_data_t>) -> PhotoMetadata {
        var metadata = PhotoMetadata()
        func text<T>(_ field: T) -> String? {
            let value = withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                .trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        metadata.cameraMake = text(raw.pointee.idata.make)
        metadata.cameraModel = text(raw.pointee.idata.model)
        // Exposure settings as LibRaw reads them from the maker's tags (no exposure bias).
        let other = raw.pointee.other
        metadata.exposureTime = other.shutter > 0 ? Double(other.shutter) : nil
        metadata.fNumber = other.aperture > 0 ? Double(other.aperture) : nil
        metadata.iso = other.iso_speed >= 1 ? Int(other.iso_speed.rounded()) : nil
        // LibRaw turns EXIF's DateTimeOriginal into a time_t with the local time zone (mktime):
        // localtime gives the fields back as written.
        var timestamp = raw.pointee.other.timestamp
        if timestamp > 0 {
            var fields = tm()
            if localtime_r(&timestamp, &fields) != nil {
                metadata.captureTime = String(format: "%04d:%02d:%02d %02d:%02d:%02d", fields.tm_year + 1900, fields.tm_mon + 1,
                                              fields.tm_mday, fields.tm_hour, fields.tm_min, fields.tm_sec)
            }
        }
        return metadata
    }

    /// LibRaw's (dcraw's) flip code as an EXIF orientation.
    static func exifOrientation(flip: Int) -> Int {
        switch flip {
        case 3: 3
        case 5: 8
        case 6: 6
        default: 1
        }
    }

    private static func message(_ code: Int32) -> String {
        libraw_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
