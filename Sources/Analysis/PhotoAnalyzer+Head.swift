extension PhotoAnalyzer {
    /// The features of a JPEG from the head of its file alone (`PhotoFetcher.fetchHead`), when
    /// previews are on and its EXIF thumbnail is accepted (`PreviewPolicy`, as `analyze` would
    /// use it): then nothing past the thumbnail is needed, and over a network mount the rest of
    /// a 4 MB camera file is never read. nil in every other case (another format, no or a
    /// refused thumbnail, a head that ends inside the EXIF block or before the frame header, a
    /// frame over the pixel limit): read the whole file and `analyze` it, which also reports
    /// what is wrong with a damaged one.
    public static func analyzeFromHead(_ head: [UInt8], path: String, options: AnalysisOptions) -> PhotoFeatures? {
        guard options.usePreviews, PhotoFormat.detect(head) == .jpeg, let header = try? JPEGDecoder.header(head),
              header.width * header.height <= options.maxPixels else { return nil }
        let metadata = JPEGMetadataReader.read(head)
        guard let preview = exifPreview(head, header: header, metadata: metadata)?.oriented(metadata.orientation) else { return nil }
        let swaps = metadata.orientation >= 5
        return features(.jpeg, preview.luma, chroma: preview.chroma, width: swaps ? header.height : header.width,
                        height: swaps ? header.width : header.height, metadata: metadata, fromPreview: true)
    }
}
