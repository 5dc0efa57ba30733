import CHeif

/// Decodes HEIC/HEIF (every iPhone photo since 2017) with libheif, to grayscale. libheif
/// applies the file's rotation and mirroring (irot/imir) itself, so the result is already
/// oriented as a viewer shows it. HEVC has no reduced-size decode; the pixel limit is checked
/// from the container first.
public enum HEIFDecoder {
    public struct Decoded {
        public var image: GrayImage
        public var chroma: ChromaPlanes?
        public var width: Int
        public var height: Int
        public var metadata: PhotoMetadata
        /// The image is a thumbnail item standing in for the primary image.
        public var fromPreview = false
    }

    public static func decode(_ bytes: [UInt8], path: String, maxPixels: Int, usePreviews: Bool = false) throws(AnalysisFailure) -> Decoded {
        try withPrimaryImage(bytes, path: path, maxPixels: maxPixels) { (handle, width, height, metadata) throws(AnalysisFailure) in
            if usePreviews, var preview = thumbnail(of: handle, width: width, height: height) {
                preview.metadata = metadata
                preview.fromPreview = true
                return preview
            }
            return try decodeLuma(handle, path: path, width: width, height: height, metadata: metadata)
        }
    }

    /// The thumbnail item `decode` would use with previews on, nil when there is none (or the
    /// file cannot be read): never the primary image. For a file whose bytes are there only in
    /// part (`HEIFHead`: the primary image's left as zeros).
    public static func decodePreview(_ bytes: [UInt8], path: String, maxPixels: Int) -> Decoded? {
        try? withPrimaryImage(bytes, path: path, maxPixels: maxPixels) { handle, width, height, metadata in
            guard var preview = thumbnail(of: handle, width: width, height: height) else { return nil }
            preview.metadata = metadata
            preview.fromPreview = true
            return preview
        }
    }

    /// `body` with the primary image's handle, its displayed size (within `maxPixels`) and its
    /// Exif metadata (orientation 1: libheif applies the file's rotation and mirroring).
    private static func withPrimaryImage<Result>(
        _ bytes: [UInt8], path: String, maxPixels: Int,
        _ body: (OpaquePointer, Int, Int, PhotoMetadata) throws(AnalysisFailure) -> Result
    ) throws(AnalysisFailure) -> Result {
        guard let context = heif_context_alloc() else { throw AnalysisFailure(.internal, "libheif could not allocate a context") }
        defer { heif_context_free(context) }
        var error = bytes.withUnsafeBytes { heif_context_read_from_memory_without_copy(context, $0.baseAddress, $0.count, nil) }
        guard error.code == heif_error_Ok else { throw AnalysisFailure(.corrupt, "\(path): HEIF container is unreadable: \(describe(error))") }
        var handle: OpaquePointer?
        error = heif_context_get_primary_image_handle(context, &handle)
        guard error.code == heif_error_Ok, let handle else { throw AnalysisFailure(.corrupt, "\(path): HEIF has no primary image: \(describe(error))") }
        defer { heif_image_handle_release(handle) }
        let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
        guard width > 0, height > 0 else { throw AnalysisFailure(.corrupt, "\(path): HEIF image has no size") }
        guard width * height <= maxPixels else {
            throw AnalysisFailure(.tooLarge, "\(path): \(width)x\(height) is \(width * height / 1_000_000) MP, over the \(maxPixels / 1_000_000) MP limit (raise --max-megapixels to analyse it)")
        }
        var metadata = exifMetadata(handle)
        metadata.orientation = 1  // libheif has applied the transformations
        return try body(handle, width, height, metadata)
    }

    /// The smallest thumbnail item `PreviewPolicy` accepts, decoded (libheif applies its
    /// transformations, as for the primary image, so both sizes compare as displayed); nil if
    /// there is none or it cannot be decoded.
    private static func thumbnail(of handle: OpaquePointer, width: Int, height: Int) -> Decoded? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: min(count, 16))
        let listed = Int(ids.withUnsafeMutableBufferPointer { heif_image_handle_get_list_of_thumbnail_IDs(handle, $0.baseAddress, Int32($0.count)) })
        var best: (handle: OpaquePointer, pixels: Int)?
        for id in ids.prefix(listed) {
            var thumbnail: OpaquePointer?
            guard heif_image_handle_get_thumbnail(handle, id, &thumbnail).code == heif_error_Ok, let thumbnail else { continue }
            let w = Int(heif_image_handle_get_width(thumbnail)), h = Int(heif_image_handle_get_height(thumbnail))
            if PreviewPolicy.accepts(previewWidth: w, previewHeight: h, width: width, height: height),
               best.map({ w * h < $0.pixels }) ?? true {
                if let previous = best { heif_image_handle_release(previous.handle) }
                best = (thumbnail, w * h)
            } else {
                heif_image_handle_release(thumbnail)
            }
        }
        guard let best else { return nil }
        defer { heif_image_handle_release(best.handle) }
        return try? decodeLuma(best.handle, path: "", width: width, height: height, metadata: PhotoMetadata())
    }

    /// Decodes an image handle to its luma, and its chroma planes when it has them.
    private static func decodeLuma(_ handle: OpaquePointer, path: String, width: Int, height: Int, metadata: PhotoMetadata) throws(AnalysisFailure) -> Decoded {
        // The native layout (YCbCr for HEVC, or monochrome): its Y plane is the luma, and no
        // colour conversion is spent on it.
        var image: OpaquePointer?
        let error = heif_decode_image(handle, &image, heif_colorspace_undefined, heif_chroma_undefined, nil)
        if error.code == heif_error_Ok, let decoded = image, heif_image_get_colorspace(decoded) == heif_colorspace_RGB {
            heif_image_release(decoded)
            image = nil
            return try decodeRGB(handle, path: path, width: width, height: height, metadata: metadata)
        }
        guard error.code == heif_error_Ok, let image else {
            let kind: AnalysisFailure.Kind = error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype ? .unsupported : .corrupt
            throw AnalysisFailure(kind, "\(path): HEIF image could not be decoded: \(describe(error))")
        }
        defer { heif_image_release(image) }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_Y, &stride) else {
            throw AnalysisFailure(.corrupt, "\(path): HEIF image has no luma plane")
        }
        let planeWidth = Int(heif_image_get_width(image, heif_channel_Y)), planeHeight = Int(heif_image_get_height(image, heif_channel_Y))
        let luma = GrayImage(plane: plane, width: planeWidth, height: planeHeight, stride: Int(stride),
                             bits: Int(heif_image_get_bits_per_pixel_range(image, heif_channel_Y)))
        return Decoded(image: luma, chroma: chromaPlanes(image),
                       width: width, height: height, metadata: metadata)
    }

    /// The Cb and Cr planes of a YCbCr image (nil for monochrome).
    private static func chromaPlanes(_ image: OpaquePointer) -> ChromaPlanes? {
        guard heif_image_get_colorspace(image) == heif_colorspace_YCbCr else { return nil }
        func plane(_ channel: heif_channel) -> GrayImage? {
            var stride: Int32 = 0
            guard let base = heif_image_get_plane_readonly(image, channel, &stride) else { return nil }
            let width = Int(heif_image_get_width(image, channel)), height = Int(heif_image_get_height(image, channel))
            guard width > 0, height > 0 else { return nil }
            return GrayImage(plane: base, width: width, height: height, stride: Int(stride),
                             bits: Int(heif_image_get_bits_per_pixel_range(image, channel)))
        }
        guard let cb = plane(heif_channel_Cb), let cr = plane(heif_channel_Cr) else { return nil }
        return ChromaPlanes(cb: cb, cr: cr)
    }

    /// An image stored as RGB: decoded interleaved, then reduced to luma.
    private static func decodeRGB(_ handle: OpaquePointer, path: String, width: Int, height: Int, metadata: PhotoMetadata) throws(AnalysisFailure) -> Decoded {
        var image: OpaquePointer?
        let error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil)
        guard error.code == heif_error_Ok, let image else { throw AnalysisFailure(.corrupt, "\(path): HEIF image could not be decoded: \(describe(error))") }
        defer { heif_image_release(image) }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw AnalysisFailure(.corrupt, "\(path): HEIF image has no pixels")
        }
        let w = Int(heif_image_get_width(image, heif_channel_interleaved)), h = Int(heif_image_get_height(image, heif_channel_interleaved))
        var pixels = [UInt8](repeating: 0, count: w * h)
        for row in 0..<h {
            let source = plane + row * Int(stride)
            for column in 0..<w {
                let r = Double(source[3 * column]), g = Double(source[3 * column + 1]), b = Double(source[3 * column + 2])
                pixels[row * w + column] = UInt8(min(255, (0.299 * r + 0.587 * g + 0.114 * b).rounded()))
            }
        }
        let chroma = ChromaPlanes.fromRGB(UnsafeBufferPointer(start: plane, count: Int(stride) * (h - 1) + 3 * w), width: w, height: h, rowBytes: Int(stride))
        return Decoded(image: GrayImage(width: w, height: h, pixels: pixels), chroma: chroma, width: width, height: height, metadata: metadata)
    }

    /// Capture time and camera from the Exif block (its first 4 bytes are the offset of the
    /// TIFF header).
    private static func exifMetadata(_ handle: OpaquePointer) -> PhotoMetadata {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return PhotoMetadata() }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 8, size < 1 << 20 else { return PhotoMetadata() }
        var block = [UInt8](repeating: 0, count: size)
        guard block.withUnsafeMutableBytes({ heif_image_handle_get_metadata(handle, id, $0.baseAddress) }).code == heif_error_Ok else {
            return PhotoMetadata()
        }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard 4 + offset < block.count else { return PhotoMetadata() }
        return ExifReader.read(tiff: block[(4 + offset)...])
    }

    private static func describe(_ error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
    }
}
