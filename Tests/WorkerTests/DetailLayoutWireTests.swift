@testable import Worker
import Analysis
import Foundation
import Shared
import Testing

/// Pipeline 8 on the wire: the worker's pipeline sends a textured photo's detail layout, and
/// nothing for a smooth one.
@Suite("Detail layouts on the wire", .timeLimit(.minutes(5)))
struct DetailLayoutWireTests {
    func png(_ image: RGBImage) throws -> [UInt8] {
        try #require(PNGDecoder.encode(rgb: image.pixels, width: image.width, height: image.height))
    }

    func features(_ bytes: [UInt8]) async throws -> Cull_V1_Features {
        let path = NSTemporaryDirectory() + "cull-detail-\(UUID().uuidString).png"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let job = Cull_V1_Job.with {
            $0.jobID = 1
            $0.fetchTimeoutMs = 30_000
            $0.photos = [Cull_V1_PhotoRef.with { $0.photoID = 7; $0.path = path }]
        }
        let result = await PhotoPipeline(fetchThreads: 1, computeThreads: 1).run(job, isCancelled: { false })
        return try #require(result.outcomes.first?.features, "\(result)")
    }

    @Test("a brick wall's PNG is sent with its 64×64 plane, a smooth photo's without")
    func sent() async throws {
        let bytes = try png(BrickWall.rgb())
        let wall = try await features(bytes)
        #expect(wall.detail.count == DetailLayout.byteCount)
        let analysed = try PhotoAnalyzer.analyze(bytes, path: "wall.png", options: AnalysisOptions())
        #expect(wall.detail == Data(analysed.detail), "the plane of the image the worker decoded")
        let smooth = try await features(try png(SyntheticPhoto.make(seed: 3, width: 400, height: 300)))
        #expect(smooth.detail.isEmpty && smooth.thumbnail.count == LayoutThumbnail.side * LayoutThumbnail.side)
    }
}
