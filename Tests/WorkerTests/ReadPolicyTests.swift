@testable import Worker
import Analysis
import Shared
import Testing

@Suite("Read policy")
struct ReadPolicyTests {
    @Test("inside a folder means by whole components; path maps rewrite only their own prefix")
    func components() {
        #expect(FilePaths.isInside("/photos/a.jpg", "/photos"))
        #expect(FilePaths.isInside("/photos", "/photos/"))
        #expect(!FilePaths.isInside("/photos2/a.jpg", "/photos"))
        #expect(FilePaths.isInside("/anything", "/"))
        let map = [ReadPolicy.mapping("/volume1/photos/=/mnt/photos")!]
        #expect(ReadPolicy.map("/volume1/photos/2024/a.jpg", map) == "/mnt/photos/2024/a.jpg")
        #expect(ReadPolicy.map("/volume1/photos2/a.jpg", map) == "/volume1/photos2/a.jpg")
        #expect(ReadPolicy.mapping("relative=/mnt") == nil)
        #expect(ReadPolicy.mapping("/a") == nil)
    }

    @Test("a job's limits are capped at the worker's, never raised")
    func caps() {
        let policy = ReadPolicy(maxFileBytes: 1 << 20, maxPixels: 1_000_000)
        var asked = AnalysisOptions()
        asked.maxFileBytes = 1 << 40
        asked.maxPixels = 100
        let capped = policy.capped(asked)
        #expect(capped.maxFileBytes == 1 << 20)
        #expect(capped.maxPixels == 100)
    }
}
