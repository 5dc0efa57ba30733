@testable import Worker
import Analysis
import Foundation
import Shared
import Testing

/// The worker's head-only path: a camera JPEG or raw file is analysed from its head, a head
/// that ends before what is needed is read again as long as the analysis asks, and with
/// previews off the whole file is read.
@Suite("Head-only reads in the pipeline", .timeLimit(.minutes(5)))
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

    @Test("a raw file from its head when its preview comes before the sensor data; whole when it comes after")
    func rawHead() async throws {
        let scene = SyntheticPhoto.make(seed: 73, width: 1600, height: 1200)
        let early = try SampleDNG.encode(scene, options: SampleDNG.Options(preview: (400, 300)))
        let fromHead = try await outcome(early, previews: true)
        #expect(fromHead.sha256HeadTail && fromHead.source == .embeddedPreview && fromHead.fileSize == UInt64(early.count))
        var options = SampleDNG.Options(preview: (400, 300))
        options.previewAfterSensor = true
        let late = try SampleDNG.encode(scene, options: options)
        let whole = try await outcome(late, previews: true)
        #expect(!whole.sha256HeadTail && whole.source == .embeddedPreview, "read whole, then the preview used as before")
        #expect(whole.phash == fromHead.phash)
    }
}
