@testable import Worker
import Analysis
import Foundation
import Shared
import Testing

/// The worker's head-only path: a camera JPEG is analysed from its head, a head that ends
/// before the frame header is read again as long as the markers ask, and with previews off the
/// whole file is read.
@Suite("Head-only reads in the pipeline", .timeLimit(.minutes(2)))
struct PhotoPipelineHeadTests {
    func outcome(_ bytes: [UInt8], previews: Bool) async throws -> Cull_V1_Features {
        let path = NSTemporaryDirectory() + "cull-pipeline-\(UUID().uuidString).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pipeline = PhotoPipeline(fetchThreads: 1, computeThreads: 1)
        var options = AnalysisOptions()
        options.usePreviews = previews
        let job = Cull_V1_Job.with {
            $0.jobID = 1
            $0.fetchTimeoutMs = 30_000
            $0.options = Cull_V1_AnalysisOptions.with {
                $0.minShortSide = UInt32(options.minShortSide); $0.maxPixels = UInt64(options.maxPixels)
                $0.maxFileBytes = UInt64(options.maxFileBytes); $0.usePreviews = previews
            }
            $0.photos = [Cull_V1_PhotoRef.with { $0.photoID = 7; $0.path = path }]
        }
        let result = await pipeline.run(job, isCancelled: { false })
        return try #require(result.outcomes.first?.features, "\(result)")
    }

    @Test("from the head, also when its frame header lies past 128 KiB; with previews off, the whole file")
    func headPaths() async throws {
        let bytes = try SampleCameraJPEG.encode(seed: 71)
        let usual = try await outcome(bytes, previews: true)
        #expect(usual.sha256HeadTail && usual.source == .embeddedPreview && usual.fileSize == UInt64(bytes.count))
        let long = SampleCameraJPEG.withLargeSegments(bytes, count: 4)
        let grown = try await outcome(long, previews: true)
        #expect(grown.sha256HeadTail && grown.phash == usual.phash, "read again with a longer head, not whole")
        let whole = try await outcome(long, previews: false)
        #expect(!whole.sha256HeadTail && whole.source == .mainImage && whole.fileSize == UInt64(long.count))
    }
}
