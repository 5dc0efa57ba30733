@testable import Analysis
import Testing

/// A raw file's preview from the head of the file (issue 12, point 4): what LibRaw takes from
/// the head is used only when the head holds the preview byte for byte, and then the features
/// are the whole file's.
@Suite("Raw previews from the head", .timeLimit(.minutes(5)))
struct RAWHeadTests {
    static let scene = SyntheticPhoto.make(seed: 61, width: 1600, height: 1200)

    static func options() -> AnalysisOptions {
        var options = AnalysisOptions()
        options.usePreviews = true
        return options
    }

    static func head(_ bytes: [UInt8], _ count: Int) -> [UInt8] { Array(bytes.prefix(count)) }

    @Test("a preview before the sensor data: the head's features are the whole file's, camera and time included")
    func previewInHead() throws {
        var dng = SampleDNG.Options(preview: (400, 300), captureTime: "2024:06:01 11:00:00")
        dng.orientation = 6
        let bytes = try SampleDNG.encode(Self.scene, options: dng)
        try #require(bytes.count > 4 * PhotoFetcher.headBytes)
        let whole = try PhotoAnalyzer.analyze(bytes, path: "a.dng", options: Self.options())
        guard case .features(let fromHead) = PhotoAnalyzer.analyzeHead(Self.head(bytes, PhotoFetcher.headBytes), fileSize: bytes.count,
                                                                          path: "a.dng", options: Self.options()) else {
            Issue.record("not analysed from the head")
            return
        }
        #expect(fromHead == whole)
        #expect(fromHead.format == .raw && fromHead.fromPreview && fromHead.width == 1200 && fromHead.height == 1600, "turned as the camera said")
        #expect(fromHead.metadata.cameraModel == "Test Camera" && fromHead.metadata.captureTime == "2024:06:01 11:00:00")
    }

    @Test("a preview that runs past the head: its directories say where it ends, one more head holds it and gives the whole file's features; one byte short is never used")
    func previewPastHead() throws {
        var dng = SampleDNG.Options(preview: (1200, 900))
        dng.previewQuality = 95  // about 300 KB
        let bytes = try SampleDNG.encode(Self.scene, options: dng)
        let whole = try PhotoAnalyzer.analyze(bytes, path: "b.dng", options: Self.options())
        // The preview lies between the directories and the sensor data (16-bit, 1600×1200).
        let previewEnd = bytes.count - 1600 * 1200 * 2
        try #require(previewEnd > 2 * PhotoFetcher.headBytes, "the preview must run past the first head")
        // As the worker does: each head a little past what the last one asked for.
        var length = PhotoFetcher.headBytes, heads = [Int]()
        var fromHead: PhotoFeatures?
        while fromHead == nil, heads.count < 8 {
            heads.append(length)
            switch PhotoAnalyzer.analyzeHead(Self.head(bytes, length), fileSize: bytes.count, path: "b.dng", options: Self.options()) {
            case .features(let features): fromHead = features
            case .needsAtLeast(let needed): length = needed + 64 * 1024
            case .readWhole: Issue.record("read whole after heads \(heads)"); return
            case .needsRanges: Issue.record("a raw file's preview is read in heads, not ranges"); return
            }
        }
        #expect(fromHead == whole && fromHead?.fromPreview == true, "heads \(heads)")
        // The directories in the first head say where the preview ends: one more head.
        #expect(RAWHead.previewEnd(Self.head(bytes, PhotoFetcher.headBytes)) == previewEnd)
        #expect(heads == [PhotoFetcher.headBytes, previewEnd + 64 * 1024], "heads \(heads), the preview ends at \(previewEnd)")
        // The head that ends one byte before the preview does: LibRaw's copy is short, the head
        // asks for exactly the rest.
        guard case .needsAtLeast(let needed) = PhotoAnalyzer.analyzeHead(Self.head(bytes, previewEnd - 1), fileSize: bytes.count, path: "b.dng",
                                                                         options: Self.options()) else {
            Issue.record("a head one byte short of the preview was used")
            return
        }
        #expect(needed == previewEnd)
        guard case .features(let exact) = PhotoAnalyzer.analyzeHead(Self.head(bytes, previewEnd), fileSize: bytes.count, path: "b.dng",
                                                                    options: Self.options()) else {
            Issue.record("a head that ends with the preview holds it")
            return
        }
        #expect(exact == whole)
    }

    @Test("a preview after the sensor data, a refused preview, previews off: the whole file")
    func readWhole() throws {
        var late = SampleDNG.Options(preview: (400, 300))
        late.previewAfterSensor = true
        let lateBytes = try SampleDNG.encode(Self.scene, options: late)
        // As the worker does: longer heads while they are asked for, up to a quarter of the file.
        var length = PhotoFetcher.headBytes, heads = [Int]()
        loop: while heads.count < 8 {
            heads.append(length)
            switch PhotoAnalyzer.analyzeHead(Self.head(lateBytes, length), fileSize: lateBytes.count, path: "c.dng", options: Self.options()) {
            case .features: Issue.record("a preview past every head was used: heads \(heads)"); return
            case .needsAtLeast(let needed): length = needed + 64 * 1024
            case .readWhole: break loop
            case .needsRanges: Issue.record("a raw file's preview is read in heads, not ranges"); return
            }
        }
        #expect(heads == [PhotoFetcher.headBytes], "the directories say the preview ends with the file: read it whole at once (heads \(heads))")
        #expect(RAWHead.previewEnd(Self.head(lateBytes, PhotoFetcher.headBytes)) == lateBytes.count)
        let small = try SampleDNG.encode(Self.scene, options: SampleDNG.Options(preview: (64, 48)))
        guard case .readWhole = PhotoAnalyzer.analyzeHead(Self.head(small, PhotoFetcher.headBytes), fileSize: small.count, path: "d.dng",
                                                          options: Self.options()) else {
            Issue.record("a refused preview should send the file to the sensor data")
            return
        }
        var off = Self.options()
        off.usePreviews = false
        guard case .readWhole = PhotoAnalyzer.analyzeHead(Self.head(small, PhotoFetcher.headBytes), fileSize: small.count, path: "d.dng",
                                                          options: off) else {
            Issue.record("previews off: the whole file")
            return
        }
    }
}
