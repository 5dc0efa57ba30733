/// What the analysis of one photo yields: the wire's `Features`, without protobuf.
public struct PhotoFeatures: Sendable, Equatable {
    public var format: PhotoFormat
    public var width: Int                // full image, after orientation
    public var height: Int
    public var decodedWidth: Int         // the reduced image the features came from
    public var decodedHeight: Int
    public var pHash: UInt64
    public var dHash: UInt64
    /// pHashes of `FeatureWindow.crops`, in that order, then of the straightened frames
    /// (`FeatureWindow.straightenings`): candidates for crops, straightened crops and overlays.
    public var windowPHashes: [UInt64]
    /// `LayoutThumbnail.side`² gray levels of the whole frame: confirms candidates.
    public var thumbnail: [UInt8]
    /// The pHash of the frame's mirror image: finds mirrored copies.
    public var mirrorPHash: UInt64
    /// The part of the frame inside plain borders (`ContentBox`) and its pHash, if it has borders.
    public var contentBox: FeatureWindow?
    public var contentPHash: UInt64?
    /// `ChromaLayout`: 8×8 mean Cb and Cr of the whole frame; empty for grayscale images.
    public var chroma: [UInt8]
    /// `DetailLayout`: the frame's 64×64 gray levels when its thumbnail misstates its windows
    /// (fine texture); empty otherwise.
    public var detail: [UInt8] = []
    public var sharpness: Double
    public var meanLuma: Double
    public var metadata: PhotoMetadata
    /// The pixel features came from an embedded preview (EXIF thumbnail, HEIF thumbnail item),
    /// not the main image. A preview can be stale (an edited copy that kept its camera's
    /// thumbnail): grouping verifies such photos from their main image before it trusts them.
    public var fromPreview: Bool
}

/// Options a job carries for every photo in it.
public struct AnalysisOptions: Sendable, Equatable {
    public var minShortSide: Int = 256
    public var maxPixels: Int = 200_000_000
    public var maxFileBytes: Int = 512 << 20
    public var usePreviews: Bool = false

    public init() {}
}

/// The CPU half of analysing a photo: decode at reduced size and compute features. Runs on the
/// worker's compute queue. Pure: bytes in, features or a failure out.
public enum PhotoAnalyzer {
    /// The analysis pipeline's version. Stored with every result; bump it whenever a decoder
    /// or feature changes what it computes, so rescans recompute exactly those rows.
    /// 1: JPEG only. 2: PNG, WebP and HEIF too (their v1 "unsupported" rows must be redone).
    /// 3: window pHashes and the layout thumbnail (every row must be redone to get them).
    /// 4: six band windows, the mirror pHash, the content box inside borders, the chroma layout.
    /// 5: the chroma layout at 16×16 (was 8×8), for telling plain graphics apart by colour.
    /// 6: four straightened windows after the crops (`FeatureWindow.straightenings`).
    /// 7: WebP's luma and chroma expanded from video range to full range (`VideoRange`); only
    ///    WebP rows change, and the store's migration v12 keeps every other row of pipeline 6.
    /// 8: the detail layout (`DetailLayout`: 64×64 gray levels) of photos with fine texture.
    public static let pipelineVersion: UInt32 = 8

    public static let supportedFormats: [PhotoFormat] = [.jpeg, .png, .webp, .heif, .tiff, .raw]

    public static func analyze(_ bytes: [UInt8], path: String, options: AnalysisOptions) throws(AnalysisFailure) -> PhotoFeatures {
        guard let format = PhotoFormat.detectRefined(bytes) else {
            throw AnalysisFailure(.unsupported, "\(path): not a recognised image format")
        }
        switch format {
        case .jpeg:
            return try analyzeJPEG(bytes, path: path, options: options)
        case .png:
            let decoded = try PNGDecoder.decode(bytes, path: path, maxPixels: options.maxPixels)
            return features(.png, decoded.luma.reduced(minShortSide: options.minShortSide), chroma: decoded.chroma,
                            width: decoded.luma.width, height: decoded.luma.height, metadata: PhotoMetadata())
        case .webp:
            let (decoded, width, height) = try WebPDecoder.decode(bytes, path: path, minShortSide: options.minShortSide, maxPixels: options.maxPixels)
            return features(.webp, decoded.luma, chroma: decoded.chroma, width: width, height: height, metadata: PhotoMetadata())
        case .heif:
            let decoded = try HEIFDecoder.decode(bytes, path: path, maxPixels: options.maxPixels, usePreviews: options.usePreviews)
            // decoded.width/height are the primary image's (displayed) size, also when a
            // thumbnail was decoded in its place.
            return features(.heif, decoded.image.reduced(minShortSide: options.minShortSide), chroma: decoded.chroma, width: decoded.width,
                            height: decoded.height, metadata: decoded.metadata, fromPreview: decoded.fromPreview)
        case .tiff:
            return try analyzeTIFF(bytes, path: path, options: options)
        case .raw:
            let decoded: RAWDecoder.Decoded
            do {
                decoded = try RAWDecoder.decode(bytes, path: path, minShortSide: options.minShortSide, maxPixels: options.maxPixels,
                                                usePreviews: options.usePreviews)
            } catch let failure where failure.kind == .unsupported && PhotoFormat.detect(bytes) == .tiff {
                // A TIFF whose first image is marked reduced (as raws mark their preview) that
                // LibRaw does not take for a camera's: an ordinary TIFF after all.
                return try analyzeTIFF(bytes, path: path, options: options)
            }
            return rawFeatures(decoded, options: options)
        default:
            throw AnalysisFailure(.unsupported, "\(path): \(format.rawValue) images are not supported by this worker (pipeline \(pipelineVersion))")
        }
    }

    /// The features of a decoded raw file (its preview or its developed sensor data), turned
    /// as the camera recorded.
    static func rawFeatures(_ decoded: RAWDecoder.Decoded, options: AnalysisOptions) -> PhotoFeatures {
        let swaps = decoded.orientation >= 5
        let oriented = decoded.pixels.oriented(decoded.orientation)
        return features(.raw, oriented.luma.reduced(minShortSide: options.minShortSide), chroma: oriented.chroma,
                        width: swaps ? decoded.height : decoded.width, height: swaps ? decoded.width : decoded.height,
                        metadata: decoded.metadata, fromPreview: decoded.fromPreview)
    }

    static func analyzeTIFF(_ bytes: [UInt8], path: String, options: AnalysisOptions) throws(AnalysisFailure) -> PhotoFeatures {
        let decoded = try TIFFDecoder.decode(bytes, path: path, minShortSide: options.minShortSide, maxPixels: options.maxPixels)
        let swaps = decoded.orientation >= 5
        let oriented = decoded.pixels.oriented(decoded.orientation)
        return features(.tiff, oriented.luma.reduced(minShortSide: options.minShortSide), chroma: oriented.chroma,
                        width: swaps ? decoded.height : decoded.width, height: swaps ? decoded.width : decoded.height, metadata: decoded.metadata)
    }

    static func analyzeJPEG(_ bytes: [UInt8], path: String, options: AnalysisOptions) throws(AnalysisFailure) -> PhotoFeatures {
        let header: JPEGDecoder.Header
        do { header = try JPEGDecoder.header(bytes) } catch { throw error.naming(path) }
        let pixels = header.width * header.height
        guard pixels <= options.maxPixels else {
            throw AnalysisFailure(.tooLarge, "\(path): \(header.width)x\(header.height) is \(pixels / 1_000_000) MP, over the \(options.maxPixels / 1_000_000) MP limit (raise --max-megapixels to analyse it)")
        }
        let metadata = JPEGMetadataReader.read(bytes)
        let swaps = metadata.orientation >= 5
        let width = swaps ? header.height : header.width, height = swaps ? header.width : header.height
        if options.usePreviews, let preview = exifPreview(bytes, header: header, metadata: metadata)?.oriented(metadata.orientation) {
            return features(.jpeg, preview.luma, chroma: preview.chroma, width: width, height: height, metadata: metadata, fromPreview: true)
        }
        let decoded: DecodedPixels
        do { decoded = try JPEGDecoder.decode(bytes, minShortSide: options.minShortSide).oriented(metadata.orientation) } catch { throw error.naming(path) }
        return features(.jpeg, decoded.luma, chroma: decoded.chroma, width: width, height: height, metadata: metadata)
    }

    /// The EXIF thumbnail, decoded, if `PreviewPolicy` accepts it; nil means "decode the main
    /// image" (no thumbnail, too small, another frame, or damaged: a bad preview never fails
    /// a photo whose main image is fine).
    static func exifPreview(_ bytes: [UInt8], header: JPEGDecoder.Header, metadata: PhotoMetadata) -> DecodedPixels? {
        guard let preview = metadata.thumbnail, let previewHeader = try? JPEGDecoder.header(preview),
              PreviewPolicy.accepts(previewWidth: previewHeader.width, previewHeight: previewHeader.height,
                                    width: header.width, height: header.height) else { return nil }
        return try? JPEGDecoder.decode(preview, minShortSide: PreviewPolicy.minimumShortSide)
    }

    /// The features of a decoded, oriented, reduced image; `width` and `height` are the full
    /// image's, after orientation.
    static func features(_ format: PhotoFormat, _ image: GrayImage, chroma: ChromaPlanes?, width: Int, height: Int, metadata: PhotoMetadata,
                         fromPreview: Bool = false) -> PhotoFeatures {
        let sampler = AreaSampler(image)
        let contentBox = ContentBox.detect(image)
        // The whole frame's 32×32 cells, sampled once: its pHash, its mirror image's pHash and
        // the layout thumbnail are all made of them.
        let frame = sampler.cells(.full, columns: LayoutThumbnail.side, rows: LayoutThumbnail.side)
        let thumbnail = LayoutThumbnail.make(cells: frame)
        // The 64×64 plane: the straightened frames are resampled from it, and textured photos
        // keep it.
        let plane = DetailLayout.plane(sampler)
        return PhotoFeatures(
            format: format,
            width: width,
            height: height,
            decodedWidth: image.width,
            decodedHeight: image.height,
            pHash: PerceptualHash.pHash(cells: frame),
            dHash: PerceptualHash.dHash(image),
            windowPHashes: FeatureWindow.crops.map { PerceptualHash.pHash(sampler, window: $0) }
                + PerceptualHash.straightenedPHashes(plane: plane, aspect: Double(sampler.width) / Double(sampler.height)),
            thumbnail: thumbnail,
            mirrorPHash: PerceptualHash.mirroredPHash(cells: frame),
            contentBox: contentBox,
            contentPHash: contentBox.map { PerceptualHash.pHash(sampler, window: $0) },
            chroma: chroma.map(ChromaLayout.make) ?? [],
            detail: DetailLayout.kept(plane: plane, thumbnail: thumbnail),
            sharpness: ImageStatistics.sharpness(image),
            meanLuma: ImageStatistics.meanLuma(image),
            metadata: metadata,
            fromPreview: fromPreview
        )
    }
}

extension AnalysisFailure {
    /// The same failure with the file's path in front of its message.
    func naming(_ path: String) -> AnalysisFailure {
        AnalysisFailure(kind, "\(path): \(message)")
    }
}
