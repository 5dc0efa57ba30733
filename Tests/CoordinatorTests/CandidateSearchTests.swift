@testable import Coordinator
import Analysis
import Synchronization
import Testing

@Suite("Candidate search", .timeLimit(.minutes(5)))
struct CandidateSearchTests {
    /// Photos whose frames and windows come from a few scenes with a few bits flipped, so that
    /// every kind of pairing occurs near every radius; every tenth photo has no windows (a row
    /// from before pipeline 3).
    static func hashes(plan: CandidatePlan, count: Int) -> (CompactHashes, [[UInt64]]) {
        var random = SplitMix64(seed: 11)
        let scenes = (0..<8).map { _ in random.next() }
        func near(_ hash: UInt64) -> UInt64 {
            var hash = hash
            for _ in 0..<Int(random.next() % 12) { hash ^= 1 << (random.next() % 64) }
            return hash
        }
        var compact = CompactHashes(plan: plan)
        var all: [[UInt64]] = []
        for row in 0..<count {
            let frame = near(scenes[Int(random.next() % 8)])
            let windows = row % 10 == 9 ? [] : FeatureWindow.crops.indices.map { _ in near(scenes[Int(random.next() % 8)]) }
            compact.append(frame: frame, windows: windows)
            all.append([frame] + windows)
        }
        return (compact, all)
    }

    @Test("finds exactly the pairings a brute-force scan finds, on every thread count, exact or probing pieces at radius 0 to 2, in batches of rows or query by query",
          arguments: [(1, nil, true), (2, nil, true), (3, nil, true), (1, 1, true), (2, 1, true), (2, 1, false), (2, 0, true), (3, 2, true)] as [(Int, Int?, Bool)])
    func exact(threads: Int, pieceRadius: Int?, batched: Bool) {
        let plan = CandidatePlan(frameRadius: 9, cropWindows: [0, 12, 30, 49], cropRadius: 6, overlayWindows: [0, 24], overlayRadius: 5,
                                 pieces: 4, framePieceRadius: pieceRadius, windowPieceRadius: pieceRadius)
        let (compact, all) = Self.hashes(plan: plan, count: 400)
        var search = CandidateSearch(compact)
        search.usesBatches = batched
        search.pairingBudget = nil  // every pairing, as the scan finds them
        #expect((BatchedSearch(search) != nil) == (batched && pieceRadius != nil))
        let found = search.candidates(threads: threads)
        #expect(Set(found).count == found.count, "each pairing once")

        var expected = Set<Candidate>()
        func close(_ x: UInt64, _ y: UInt64, _ radius: Int) -> Bool {
            (x ^ y).nonzeroBitCount <= radius && pieceRadius.map { MultiIndexHash.agreeOnAPiece(x, y, pieces: 4, within: $0) } ?? true
        }
        for a in all.indices {
            for b in all.indices where b != a {
                if b > a, close(all[a][0], all[b][0], plan.frameRadius) { expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: 0, slotB: 0)) }
                guard all[a].count > 1 else { continue }
                for k in plan.cropWindows where close(all[a][k + 1], all[b][0], plan.cropRadius) {
                    expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: UInt8(k + 1), slotB: 0))
                }
                guard b > a, all[b].count > 1 else { continue }
                for k in plan.overlayWindows where close(all[a][k + 1], all[b][k + 1], plan.overlayRadius) {
                    expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: UInt8(k + 1), slotB: UInt8(k + 1)))
                }
            }
        }
        #expect(expected.count > 300, "the data has pairings of every kind")
        #expect(Set(found) == expected)
    }

    @Test("cheap crop windows find the hashes within the crop radius that agree exactly on a whole piece, in batches and query by query, held or streamed",
          arguments: [true, false])
    func cheapCropWindows(batched: Bool) throws {
        var plan = CandidatePlan(frameRadius: 9, cropWindows: [0, 12], cropRadius: 6, overlayWindows: [24], overlayRadius: 5,
                                 pieces: 4, framePieceRadius: 1, windowPieceRadius: 1)
        plan.cheapCropWindows = [30, 49]
        let (compact, all) = Self.hashes(plan: plan, count: 400)
        let found = Self.everyPairing(compact, batched: batched).candidates(threads: 2)
        var expected = Set<Candidate>()
        func close(_ x: UInt64, _ y: UInt64, _ radius: Int, piece: Int) -> Bool {
            (x ^ y).nonzeroBitCount <= radius && MultiIndexHash.agreeOnAPiece(x, y, pieces: 4, within: piece)
        }
        for a in all.indices {
            for b in all.indices where b != a {
                if b > a, close(all[a][0], all[b][0], plan.frameRadius, piece: 1) { expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: 0, slotB: 0)) }
                guard all[a].count > 1 else { continue }
                for k in plan.probedCropWindows where close(all[a][k + 1], all[b][0], plan.cropRadius, piece: plan.cheapCropWindows.contains(k) ? 0 : 1) {
                    expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: UInt8(k + 1), slotB: 0))
                }
                guard b > a, all[b].count > 1, close(all[a][25], all[b][25], plan.overlayRadius, piece: 1) else { continue }
                expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: 25, slotB: 25))
            }
        }
        let cheap = expected.filter { [31, 50].contains($0.slotA) }
        let probedAtOne = found.filter { [31, 50].contains($0.slotA) }.filter { candidate in
            let k = Int(candidate.slotA) - 1
            return !MultiIndexHash.agreeOnAPiece(all[Int(candidate.a)][k + 1], all[Int(candidate.b)][0], pieces: 4, within: 0)
        }
        #expect(cheap.count > 50, "the cheap windows pair rows")
        #expect(probedAtOne.isEmpty, "no cheap pairing agrees on a piece only within one bit")
        #expect(Set(found) == expected && found.count == expected.count)
        // Streamed: the source hands out every probed window, the cheap ones after the others.
        #expect(Set(try Self.streamed(plan: plan, all, batched: batched)) == expected)
    }

    /// A search of `compact` that keeps every pairing, as a scan finds them (no budget), in
    /// batches or query by query.
    static func everyPairing(_ compact: CompactHashes, batched: Bool) -> CandidateSearch {
        var search = CandidateSearch(compact)
        search.usesBatches = batched
        search.pairingBudget = nil
        #expect((BatchedSearch(search) != nil) == batched)
        return search
    }

    /// What `everyPairing` finds when the crop windows of `all` (frame, then windows, a row)
    /// are not held but handed out by a source, a chunk of rows at a time.
    static func streamed(plan: CandidatePlan, _ all: [[UInt64]], batched: Bool) throws -> [Candidate] {
        var light = CompactHashes(plan: plan, holdingCropWindows: false)
        for row in all { light.append(frame: row[0], windows: Array(row.dropFirst())) }
        let probed = plan.probedCropWindows
        return try everyPairing(light, batched: batched).candidates(threads: 2, cropWindows: { range in
            range.flatMap { row in probed.map { k in all[row].count > 1 ? all[row][k + 1] : 0 } }
        })
    }

    @Test("nine overlay windows, each against a table of its own, find in batches what they find query by query")
    func manyOverlayWindows() {
        let plan = CandidatePlan(frameRadius: 9, cropWindows: [0, 12], cropRadius: 6, overlayWindows: Array(0..<9), overlayRadius: 6,
                                 pieces: 4, framePieceRadius: 1, windowPieceRadius: 1)
        let (compact, _) = Self.hashes(plan: plan, count: 300)
        var search = CandidateSearch(compact)
        search.pairingBudget = nil  // every pairing, as query by query
        let batched = search.candidates(threads: 2)
        search.usesBatches = false
        let alone = search.candidates(threads: 2)
        #expect(batched.filter { $0.slotB != 0 }.count > 100, "overlay pairings of several windows")
        #expect(Set(batched) == Set(alone) && batched.count == alone.count)
    }

    @Test("crop windows read a chunk of rows at a time find what held ones find; a failing source fails the search")
    func streamedCropWindows() throws {
        let plan = CandidatePlan(frameRadius: 9, cropWindows: [0, 12, 30, 49], cropRadius: 6, overlayWindows: [0, 24], overlayRadius: 5, pieces: 4)
        let (held, all) = Self.hashes(plan: plan, count: 1500)
        var light = CompactHashes(plan: plan, holdingCropWindows: false)
        for row in all { light.append(frame: row[0], windows: Array(row.dropFirst())) }
        #expect(light.held == [0, 24], "only the overlay windows are held")
        let source: CandidateSearch.CropWindowSource = { range in
            range.flatMap { row in plan.probedCropWindows.map { k in all[row].count > 1 ? all[row][k + 1] : 0 } }
        }
        // A budget with no floor, which these rows pass (the scenes' rows pair with hundreds
        // each): the closest are chosen from the streamed windows' distances as from the held ones'.
        var streaming = CandidateSearch(light), holding = CandidateSearch(held)
        streaming.pairingBudget = Self.budgetWithoutFloors
        holding.pairingBudget = Self.budgetWithoutFloors
        let streamed = try streaming.candidates(threads: 2, cropWindows: source)
        #expect(Set(streamed) == Set(holding.candidates(threads: 2)))
        holding.pairingBudget = nil
        #expect(holding.candidates(threads: 2).count > streamed.count)
        struct Failed: Error {}
        #expect(throws: Failed.self) { try CandidateSearch(light).candidates(threads: 2, cropWindows: { _ in throw Failed() }) }
    }

    /// The standard budget's rates a photo without its floors: what a large library gets.
    static let budgetWithoutFloors = PairingBudget(frames: 24, overlay: 3, framesFloor: 0, overlayFloor: 0)

    @Test("a batch of look-alikes keeps its closest pairings, no more than its budget a row; a sparse batch keeps every one; small libraries have a floor")
    func pairingBudget() {
        // 1,500 rows within 4 bits of one hash, each window a frame's neighbour too: every row
        // pairs with nearly every other. Rows 0 and 1 share their frame exactly.
        let plan = CandidatePlan(frameRadius: 10, cropWindows: [0, 1, 2], cropRadius: 8, overlayWindows: [0], overlayRadius: 8,
                                 pieces: 4, framePieceRadius: 1, windowPieceRadius: 1)
        var random = SplitMix64(seed: 5)
        let base = random.next()
        func near() -> UInt64 { (0..<4).reduce(base) { hash, _ in hash ^ 1 << (random.next() % 64) } }
        var compact = CompactHashes(plan: plan)
        let count = 1500
        for row in 0..<count {
            compact.append(frame: row < 2 ? base ^ 1 : near(), windows: (0..<3).map { _ in near() })
        }
        var search = CandidateSearch(compact)
        let budget = Self.budgetWithoutFloors
        search.pairingBudget = budget
        let kept = search.candidates(threads: 2)
        #expect(kept.count <= (budget.frames + budget.overlay * plan.overlayWindows.count) * count)
        #expect(kept.contains(Candidate(a: 0, b: 1, slotA: 0, slotB: 0)), "the closest pairing of all is kept")
        search.pairingBudget = nil
        let all = search.candidates(threads: 2).count
        #expect(all > 20 * kept.count, "\(all) against \(kept.count)")
        // The standard budget: 24 a photo in a large library, a floor of 8 million in all for a
        // small one (the holdout corpus's 396 files are never cut).
        #expect(PairingBudget.standard.framesLimit(rows: 4096, of: 1_000_000) == 24 * 4096)
        #expect(PairingBudget.standard.framesLimit(rows: 396, of: 396) == 8_000_000)
        #expect(PairingBudget.standard.overlayLimit(rows: 131_072, of: 1_000_000) == 3 * 131_072)
        // Random photos and a copy of every tenth, a few bits off: far fewer pairings than the
        // budget, and nothing is left out.
        var sparse = CompactHashes(plan: plan)
        var originals: [UInt64] = []
        for row in 0..<count {
            let frame = row % 10 == 9 ? originals[row - 1] ^ 1 << (random.next() % 64) : random.next()
            originals.append(frame)
            sparse.append(frame: frame, windows: (0..<3).map { _ in random.next() })
        }
        var sparseSearch = CandidateSearch(sparse)
        sparseSearch.pairingBudget = budget
        let budgeted = sparseSearch.candidates(threads: 2)
        sparseSearch.pairingBudget = nil
        #expect(Set(budgeted) == Set(sparseSearch.candidates(threads: 2)) && !budgeted.isEmpty)
    }

    @Test("bordered look-alikes keep their closest content pairings within the frames' budget; a few bordered copies keep every one")
    func contentBudget() {
        // 1,500 bordered rows whose contents lie within 4 bits of one hash (one app's screenshots
        // in its frame), frames apart: every content pairs with nearly every other. Rows 0 and 1
        // share their content exactly.
        let plan = CandidatePlan(frameRadius: 10, cropWindows: [], overlayWindows: [], pieces: 4, framePieceRadius: 1, windowPieceRadius: 1)
        var random = SplitMix64(seed: 9)
        let base = random.next()
        func near() -> UInt64 { (0..<4).reduce(base) { hash, _ in hash ^ 1 << (random.next() % 64) } }
        var compact = CompactHashes(plan: plan)
        let count = 1500
        for row in 0..<count { compact.append(frame: random.next(), windows: [], content: row < 2 ? base : near()) }
        var search = CandidateSearch(compact)
        let budget = Self.budgetWithoutFloors
        search.pairingBudget = budget
        let kept = search.candidates(threads: 2)
        #expect(kept.count <= budget.frames * count)
        #expect(kept.contains(Candidate(a: 0, b: 1, slotA: Candidate.contentSlot, slotB: Candidate.contentSlot)), "the closest pairing is kept")
        search.pairingBudget = nil
        let all = search.candidates(threads: 2).count
        #expect(all > 20 * kept.count, "\(all) against \(kept.count)")
        // A tenth of the rows bordered copies of another row: every pairing kept.
        var sparse = CompactHashes(plan: plan)
        var frames: [UInt64] = []
        for row in 0..<count {
            frames.append(random.next())
            sparse.append(frame: frames[row], windows: [], content: row % 10 == 9 ? frames[row - 1] ^ 1 << (random.next() % 64) : nil)
        }
        var sparseSearch = CandidateSearch(sparse)
        sparseSearch.pairingBudget = budget
        let budgeted = sparseSearch.candidates(threads: 2)
        #expect(budgeted.count >= count / 10 && budgeted.allSatisfy { $0.slotA == Candidate.contentSlot })
        sparseSearch.pairingBudget = nil
        #expect(Set(budgeted) == Set(sparseSearch.candidates(threads: 2)))
    }

    @Test("keepClosest keeps every candidate within the largest distance the limit allows, or the first at distance 0")
    func keepClosest() {
        let candidates = (0..<10).map { Candidate(a: 0, b: Int32($0 + 1), slotA: 0, slotB: 0) }
        var found = [Candidate(a: 9, b: 9, slotA: 0, slotB: 0)] + candidates
        BatchedSearch.keepClosest(&found, from: 1, distances: [4, 0, 2, 6, 2, 0, 8, 2, 4, 10], limit: 5)
        #expect(found.map(\.b) == [9, 2, 3, 5, 6, 8], "distances 0 and 2 (five), in order, after what came before")
        var zeros = candidates
        BatchedSearch.keepClosest(&zeros, from: 0, distances: [0, 0, 0, 2, 0, 0, 0, 0, 0, 0], limit: 3)
        #expect(zeros.map(\.b) == [1, 2, 3])
        var few = candidates
        BatchedSearch.keepClosest(&few, from: 0, distances: Array(repeating: 8, count: 10), limit: 10)
        #expect(few == candidates)
    }

    @Test("a stopped search ends early, and progress counts the rows searched")
    func stops() {
        // Radius 0 and one window: cheap, so the test measures stopping, not searching.
        let plan = CandidatePlan(frameRadius: 0, cropWindows: [0], cropRadius: 0, overlayWindows: [], overlayRadius: 0, pieces: 4)
        let count = 2 * BatchedSearch.rowsPerBatch + 100
        let (compact, _) = Self.hashes(plan: plan, count: count)
        let search = CandidateSearch(compact)
        let rows = Counter()
        _ = search.candidates(threads: 1, progress: { rows.add($0) })
        #expect(rows.add(0) == count, "progress counted every row of a full search")

        let asked = Counter(), stoppedRows = Counter()
        _ = search.candidates(threads: 1, shouldStop: { asked.add(1) > 1 }, progress: { stoppedRows.add($0) })
        #expect(stoppedRows.add(0) == BatchedSearch.rowsPerBatch, "one chunk of rows, then it stopped")
    }

    @Test("the default plan probes every 80% window at 10 bits while the tables have 4 pieces, the nine at 0, 10 and 20% once they have 3, at 8 bits but in the corners and the caption bands; other plans as they are")
    func sizedPlan() {
        #expect(MultiIndexHash.pieceCount(for: 300_000) == 4 && MultiIndexHash.pieceCount(for: 330_000) == 3)
        let small = CandidatePlan().sized(for: 300_000), large = CandidatePlan().sized(for: 330_000)
        #expect(small.cropWindows == CandidatePlan.cropWindowsDefault && Set(small.cropWindows).isSuperset(of: 0..<50))
        #expect(small.cropRadius == 10 && small.narrowCropRadius == nil && small.cropRadius(ofWindow: 12) == 10)
        #expect(large.narrowCropRadius == CandidatePlan.cropRadiusLargeLibraries && CandidatePlan.cropRadiusLargeLibraries == 8)
        #expect(large.cropWindows.filter { large.cropRadius(ofWindow: $0) == 10 } == [0, 4, 20, 24, 53, 55])
        #expect(large.cropWindows.filter { (25..<50).contains($0) } == [25, 27, 29, 35, 37, 39, 45, 47, 49])
        #expect(Set(large.cropWindows).isSuperset(of: Array(0..<25) + FeatureWindow.bandWindows + FeatureWindow.straightenedWindows))
        #expect(CandidatePlan().sized(for: 1_000_000) == large)
        var pinned = CandidatePlan()
        pinned.pieces = 4
        #expect(pinned.sized(for: 1_000_000) == pinned, "pieces chosen by the caller: the plan as it is")
        var chosen = CandidatePlan()
        chosen.cropWindows = [3, 30]
        #expect(chosen.sized(for: 1_000_000) == chosen)
    }

    @Test("holds only the windows its plan reads")
    func compact() {
        let straightened = FeatureWindow.straightenedWindows[2]
        let plan = CandidatePlan(cropWindows: [3, 7, straightened], overlayWindows: [7, 20])
        var hashes = CompactHashes(plan: plan)
        let windows = (0..<FeatureWindow.hashedCount).map { UInt64($0) * 100 }
        hashes.append(frame: 1, windows: windows)
        hashes.append(frame: 2, windows: [])
        hashes.append(frame: 3, windows: Array(windows.prefix(FeatureWindow.cropsBeforePipeline4)), content: 9)
        hashes.append(frame: 4, windows: Array(windows.prefix(FeatureWindow.crops.count)))  // pipelines 4 and 5
        #expect(plan.windows == [3, 7, 20, straightened])
        #expect(hashes.window(0, 20) == 2000 && hashes.window(0, 3) == 300 && hashes.window(0, straightened) == UInt64(straightened) * 100)
        #expect([0, 1, 2, 3].map { hashes.hasWindow($0, 20) } == [true, false, true, true])
        #expect([0, 1, 2, 3].map { hashes.hasWindow($0, FeatureWindow.bandWindows[0]) } == [true, false, false, true])
        #expect([0, 1, 2, 3].map { hashes.hasWindow($0, straightened) } == [true, false, false, false])
        // Slots are window + 1, and `CandidateSort` packs slots 0–61 (then the mirror and content).
        #expect(FeatureWindow.hashedCount <= 61)
        #expect(hashes.contentRows == [2] && hashes.contents == [9])
    }
}

/// A thread-safe counter for closures that must be Sendable.
final class Counter: Sendable {
    private let value = Mutex(0)
    /// Adds `amount` and returns the new value.
    @discardableResult
    func add(_ amount: Int) -> Int { value.withLock { $0 += amount; return $0 } }
}
