@testable import Coordinator
import Analysis
import Synchronization
import Testing

/// `Grouper.candidateHashes(of:plan:features:shouldStop:)`: the search's hashes read in parts on
/// grouping's threads are the hashes one read gives, row for row in the order of the ids.
@Suite("The search's hashes read in parts", .timeLimit(.minutes(5)))
struct ParallelHashReadTests {
    struct ReadFailed: Error {}

    /// Hashes made from each id, a content box on every seventh photo and windows on most; the
    /// ids of each call counted. `failing`: an id whose part throws.
    final class MadeHashes: GroupingFeatureSource {
        let calls = Mutex<[Int]>([])
        let failing: Int64?

        init(failing: Int64? = nil) { self.failing = failing }

        func candidateHashes(of ids: [Int64], plan: CandidatePlan, holdingCropWindows: Bool) throws -> CompactHashes {
            calls.withLock { $0.append(ids.count) }
            if let failing, ids.contains(failing) { throw ReadFailed() }
            var hashes = CompactHashes(plan: plan, holdingCropWindows: holdingCropWindows)
            for id in ids {
                let seed = UInt64(id) &* 0x9E37_79B9_7F4A_7C15
                let windows = id % 11 == 0 ? [] : (0..<UInt64(FeatureWindow.hashedCount)).map { seed ^ $0 }
                hashes.append(frame: seed, windows: windows, mirror: id % 3 == 0 ? nil : ~seed, content: id % 7 == 0 ? seed >> 1 : nil)
            }
            return hashes
        }

        func cropWindows(of ids: ArraySlice<Int64>, plan: CandidatePlan) throws -> [UInt64] { [] }
        func layouts(of ids: [Int64]) throws -> [Int64: PhotoLayout] { [:] }
        func windowHashes(of ids: [Int64]) throws -> [Int64: [UInt64]] { [:] }
    }

    let ids = (0..<230_000).map { Int64($0 * 2 + 5) }

    @Test("parts put together in the order of the ids: every row as one read gives it")
    func partsInOrder() throws {
        var grouper = Grouper()
        grouper.threads = 2
        let features = MadeHashes(), plan = CandidatePlan()
        let read = try grouper.candidateHashes(of: ids, plan: plan, features: features, shouldStop: { false })
        let parts = features.calls.withLock { $0 }
        #expect(parts.count > 1 && parts.reduce(0, +) == ids.count, "parts \(parts)")
        let whole = try MadeHashes().candidateHashes(of: ids, plan: plan, holdingCropWindows: false)
        #expect(read.count == whole.count && read.held == whole.held)
        #expect(read.frames == whole.frames && read.windows == whole.windows && read.windowCounts == whole.windowCounts)
        #expect(read.mirrors == whole.mirrors && read.hasMirror == whole.hasMirror)
        #expect(read.contentRows == whole.contentRows && read.contents == whole.contents)
    }

    @Test("rows taken from hashes read with every photo are the rows a read of those photos gives")
    func rowsTaken() throws {
        let plan = CandidatePlan(), source = MadeHashes()
        let all = try source.candidateHashes(of: ids, plan: plan, holdingCropWindows: false)
        for rows in [Array(stride(from: 0, to: ids.count, by: 3)), [1, 7, 14, 21, 22, 229_999], Array(ids.indices), []] {
            let taken = CompactHashes(rows: rows, of: all, plan: plan)
            let read = try source.candidateHashes(of: rows.map { ids[$0] }, plan: plan, holdingCropWindows: false)
            #expect(taken.count == rows.count && taken.held == read.held)
            #expect(taken.frames == read.frames && taken.windows == read.windows && taken.windowCounts == read.windowCounts)
            #expect(taken.mirrors == read.mirrors && taken.hasMirror == read.hasMirror)
            #expect(taken.contentRows == read.contentRows && taken.contents == read.contents, "\(rows.count) rows")
        }
    }

    @Test("a part that fails fails the read; one thread or a small library is one read")
    func failureAndOneRead() throws {
        var grouper = Grouper()
        grouper.threads = 2
        #expect(throws: ReadFailed.self) {
            _ = try grouper.candidateHashes(of: ids, plan: CandidatePlan(), features: MadeHashes(failing: ids[200_000]), shouldStop: { false })
        }
        let small = MadeHashes()
        _ = try grouper.candidateHashes(of: Array(ids.prefix(40_000)), plan: CandidatePlan(), features: small, shouldStop: { false })
        grouper.threads = 1
        let alone = MadeHashes()
        _ = try grouper.candidateHashes(of: ids, plan: CandidatePlan(), features: alone, shouldStop: { false })
        #expect(small.calls.withLock { $0 } == [40_000] && alone.calls.withLock { $0 } == [ids.count])
    }

    @Test("a read told to stop throws rather than hand back part of the hashes")
    func stopped() {
        var grouper = Grouper()
        grouper.threads = 2
        #expect(throws: CancellationError.self) {
            _ = try grouper.candidateHashes(of: ids, plan: CandidatePlan(), features: MadeHashes(), shouldStop: { true })
        }
    }
}
