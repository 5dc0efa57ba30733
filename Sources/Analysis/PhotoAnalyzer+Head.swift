extension PhotoAnalyzer {
    /// What the head of a file (`PhotoFetcher.fetchHead`) gives the analysis.
    public enum HeadAnalysis: Sendable {
        /// The photo's features, the same `analyze` gives the whole file with previews on.
        case features(PhotoFeatures)
        /// What is needed lies past the head: a head of at least this many bytes may hold it
        /// (within the format's longest head).
        case needsAtLeast(Int)
        /// What is needed lies in these ranges past the head (a HEIF's thumbnail item):
        /// read them (`PhotoFetcher.fetchRanges`) and call `analyzeRanges`.
        case needsRanges([Range<Int>])
        /// Read the whole file and `analyze` it (which also reports what is wrong with a
        /// damaged one).
        case readWhole
    }

    /// The features of a photo from the head of its file alone, when previews are on and its
    /// embedded preview is accepted (`PreviewPolicy`, as `analyze` would use it): then nothing
    /// past the preview is needed, and over a network mount the rest of a 4 MB camera JPEG or a
    /// 25 MB raw file is never read.
    ///
    /// - JPEG: the EXIF thumbnail, with the frame header (`JPEGHead` says how far the markers
    ///   before the image data run, up to `longestJPEGHead`).
    /// - Raw: the camera's JPEG preview through LibRaw (`RAWDecoder.previewFromHead`), when the
    ///   head holds it byte for byte; up to `longestRawHead(fileSize:)`.
    /// - HEIF: the ranges of the thumbnail item (`HEIFHead`), once the head holds the `meta`
    ///   box (up to `longestHEIFHead`).
    /// - Anything else, no or a refused preview, a frame over the pixel limit: `readWhole`.
    public static func analyzeHead(_ head: [UInt8], fileSize: Int, path: String, options: AnalysisOptions) -> HeadAnalysis {
        guard options.usePreviews else { return .readWhole }
        switch PhotoFormat.detectRefined(head) {
        case .jpeg:
            if let features = jpegFromHead(head, options: options) { return .features(features) }
            guard case .needsAtLeast(let needed)? = JPEGHead.extent(head), needed > head.count, needed <= longestJPEGHead else {
                return .readWhole
            }
            return .needsAtLeast(needed)
        case .raw:
            switch RAWDecoder.previewFromHead(head, maxPixels: options.maxPixels) {
            case .decoded(let decoded):
                return .features(rawFeatures(decoded, options: options))
            case .needsAtLeast(let needed) where needed > head.count && needed <= longestRawHead(fileSize: fileSize):
                return .needsAtLeast(needed)
            case .needsAtLeast, .readWhole:
                return .readWhole
            }
        case .heif:
            switch HEIFHead.extent(head, fileSize: fileSize) {
            case .needsAtLeast(let needed) where needed > head.count && needed <= longestHEIFHead:
                return .needsAtLeast(needed)
            case .ranges(let ranges):
                return .needsRanges(ranges)
            case .needsAtLeast, .readWhole:
                return .readWhole
            }
        default:
            return .readWhole
        }
    }

    /// The features of a HEIF photo from its thumbnail item, given the head of its file and
    /// the `pieces` that `analyzeHead` asked for (`needsRanges`): the file's bytes are laid out
    /// at their offsets, the rest left as zeros, and only the thumbnail is decoded
    /// (`HEIFDecoder.decodePreview`). Nil when it cannot be (read the whole file then).
    public static func analyzeRanges(head: [UInt8], pieces: [(offset: Int, bytes: [UInt8])], fileSize: Int, path: String,
                                     options: AnalysisOptions) -> PhotoFeatures? {
        guard options.usePreviews, PhotoFormat.detectRefined(head) == .heif, head.count <= fileSize,
              pieces.allSatisfy({ $0.offset >= 0 && $0.offset <= fileSize - $0.bytes.count }) else { return nil }
        var file = [UInt8](repeating: 0, count: fileSize)
        file.replaceSubrange(0..<head.count, with: head)
        for piece in pieces { file.replaceSubrange(piece.offset..<piece.offset + piece.bytes.count, with: piece.bytes) }
        guard let decoded = HEIFDecoder.decodePreview(file, path: path, maxPixels: options.maxPixels) else { return nil }
        return features(.heif, decoded.image.reduced(minShortSide: options.minShortSide), chroma: decoded.chroma, width: decoded.width,
                        height: decoded.height, metadata: decoded.metadata, fromPreview: true)
    }

    /// The longest head read for a HEIF's `meta` box (`HEIFHead`); past it the file is read
    /// whole. A phone's is a few KB.
    public static let longestHEIFHead = 1024 * 1024

    /// The longest head read when a JPEG's segments before its frame header run past the
    /// usual 128 KiB (`JPEGHead`); past it the file is read whole.
    public static let longestJPEGHead = 1024 * 1024

    /// The longest head read for a raw file's preview (`RAWDecoder.previewFromHead`): 16 MiB,
    /// and no more than a quarter of the file. A preview further in (after the sensor data) is
    /// cheaper read with the whole file than found by longer heads.
    public static func longestRawHead(fileSize: Int) -> Int {
        min(16 * 1024 * 1024, fileSize / 4)
    }

    /// `analyzeHead`'s features, nil for anything else.
    public static func analyzeFromHead(_ head: [UInt8], path: String, options: AnalysisOptions) -> PhotoFeatures? {
        guard case .features(let features) = analyzeHead(head, fileSize: .max, path: path, options: options) else { return nil }
        return features
    }

    /// A JPEG's features from its EXIF thumbnail, when the head holds the frame header and an
    /// accepted thumbnail.
    private static func jpegFromHead(_ head: [UInt8], options: AnalysisOptions) -> PhotoFeatures? {
        guard let header = try? JPEGDecoder.header(head), header.width * header.height <= options.maxPixels else { return nil }
        let metadata = JPEGMetadataReader.read(head)
        guard let preview = exifPreview(head, header: header, metadata: metadata)?.oriented(metadata.orientation) else { return nil }
        let swaps = metadata.orientation >= 5
        return features(.jpeg, preview.luma, chroma: preview.chroma, width: swaps ? header.height : header.width,
                        height: swaps ? header.width : header.height, metadata: metadata, fromPreview: true)
    }
}
