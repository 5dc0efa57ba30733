/// What the analysis of one photo yields: the wire's `Features`, without protobuf.
public struct PhotoFeatures: Sendable, Equatable {
    public var format: PhotoFormat
    public var width: Int                // full image, after orientation
    public var height: Int
    public var decodedWidth: Int         // the reduced image the features came from
    public var decodedHeight: Int
    public var pHash: UInt64
    public var dHash: UInt64
    public var sharpness: Double
    public var meanLuma: Double
    public var metadata: PhotoMetadata
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
    public static let pipelineVersion: UInt32 = 1

    public static let supportedFormats: [PhotoFormat] = [.jpeg]

    public static func analyze(_ bytes: [UInt8], path: String, options: AnalysisOptions) throws(AnalysisFailure) -> PhotoFeatures {
        guard let format = PhotoFormat.detect(bytes) else {
            throw AnalysisFailure(.unsupported, "\(path): not a recognised image format")
        }
        switch format {
        case .jpeg:
            return try analyzeJPEG(bytes, path: path, options: options)
        default:
            throw AnalysisFailure(.unsupported, "\(path): \(format.rawValue) images are not supported by this worker (pipeline \(pipelineVersion))")
        }
    }

    static func analyzeJPEG(_ bytes: [UInt8], path: String, options: AnalysisOptions) throws(AnalysisFailure) -> PhotoFeatures {
        let header: JPEGDecoder.Header
        do { header = try JPEGDecoder.header(bytes) } catch { throw error.naming(path) }
        let pixels = header.width * header.height
        guard pixels <= options.maxPixels else {
            throw AnalysisFailure(.tooLarge, "\(path): \(header.width)x\(header.height) is \(pixels / 1_000_000) MP, over the \(options.maxPixels / 1_000_000) MP limit (raise --max-megapixels to analyse it)")
        }
        let metadata = JPEGMetadataReader.read(bytes)
        let decoded: GrayImage
        do { decoded = try JPEGDecoder.decodeGray(bytes, minShortSide: options.minShortSide) } catch { throw error.naming(path) }
        let image = decoded.oriented(metadata.orientation)
        let swaps = metadata.orientation >= 5
        return PhotoFeatures(
            format: .jpeg,
            width: swaps ? header.height : header.width,
            height: swaps ? header.width : header.height,
            decodedWidth: image.width,
            decodedHeight: image.height,
            pHash: PerceptualHash.pHash(image),
            dHash: PerceptualHash.dHash(image),
            sharpness: ImageStatistics.sharpness(image),
            meanLuma: ImageStatistics.meanLuma(image),
            metadata: metadata
        )
    }
}

extension AnalysisFailure {
    /// The same failure with the file's path in front of its message.
    func naming(_ path: String) -> AnalysisFailure {
        AnalysisFailure(kind, "\(path): \(message)")
    }
}
