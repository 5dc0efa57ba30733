@testable import Coordinator
import Analysis
import Foundation
import Synchronization
import Testing

/// A benchmark, not a test (bench/grouping.sh runs it in a release build): how candidate
/// search scales on realistic feature rows (`RealisticLibrary`), every method measured in the
/// same run on the same rows. Skipped unless CULL_BENCH_CANDIDATES names the row counts and
/// CULL_FEATURE_MODEL the model file (bench/feature-model.py).
///
/// Printed per size: the brute-force floor (every pair's popcount, blocked, on every core;
/// above CULL_BENCH_FLOOR_MAX rows, default 300,000, extrapolated from the largest size measured
/// as n²), multi-index hashing of the whole frames at 3, 4 and 5 pieces (and at the piece count
/// `MultiIndexHash.pieceCount` picks), and `CandidateSearch` (frames, crops and overlays) with
/// the default plan and with the full one (every window), with the peak RSS after each. And
/// how many planted copies each plan can reach at all (the most an exact search can find).
/// CULL_BENCH_FRAMES_OUT=FILE writes the rows' frame hashes (8 bytes each, little endian) for
/// bench/faiss-peer.py, which times FAISS's binary indexes on the same pairs.
@Suite("Candidate search at library scale (benchmark)", .serialized, .timeLimit(.minutes(30)))
struct CandidateSearchBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let sizes: [Int] = (environment["CULL_BENCH_CANDIDATES"] ?? "").split(separator: ",").compactMap { Int($0) }
    static let floorMax = Int(environment["CULL_BENCH_FLOOR_MAX"] ?? "") ?? 300_000
    static let frameRadius = 10
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    @Test("candidate search on N realistic rows", .enabled(if: !sizes.isEmpty), .timeLimit(.minutes(60)), arguments: sizes)
    func scale(count: Int) throws {
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        let (library, generation) = Self.timed { RealisticLibrary.generate(count: count, model: model, disguise: Self.environment["CULL_BENCH_DISGUISE"] == "tone" ? .toneMaps : .byFamily) }
        let planted = library.copyOf.filter { $0 >= 0 }.count
        let bursts = library.burstOf.filter { $0 >= 0 }.count
        Self.say("candidates n=\(count): \(model.originals.values.map(\.count).reduce(0, +)) real originals, \(model.family.values.map(\.count).reduce(0, +)) real edited copies, \(model.transforms.count) edits; \(planted) planted copies, \(bursts) burst shots (generated in \(Self.format(generation)) s)")
        Self.say("candidates n=\(count): bit balance of frames: \(Self.bitBalance(library.frames))")
        Self.say("candidates n=\(count): look-alikes: \(library.lookAlikeRates(radius: Self.frameRadius, cropRadius: 8, plan: CandidatePlan()))")

        // bench/faiss-peer.py times FAISS's binary indexes on the same frames, after this run.
        if let path = Self.environment["CULL_BENCH_FRAMES_OUT"] {
            let bytes = library.frames.map(\.littleEndian).withUnsafeBufferPointer { Data(buffer: $0) }
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        var reference = 0
        if count <= Self.floorMax {
            let (pairs, seconds) = Self.timed { Self.bruteForcePairs(library.frames, radius: Self.frameRadius) }
            reference = pairs
            Self.report(count, "floor: all-pairs popcount, \(Self.cores) threads", seconds, pairs: pairs)
        } else {
            Self.say("candidates n=\(count): floor not run above \(Self.floorMax) rows (n² pairs); see the smaller sizes")
        }
        // CULL_BENCH_PLANS=batches or overlay-batches: only the default plan, in the variants named.
        for pieces in [4, 5] where !["batches", "overlay-batches"].contains(Self.environment["CULL_BENCH_PLANS"]) {
            let (index, build) = Self.timed { MultiIndexHash(library.frames, pieces: pieces) }
            let (pairs, query) = Self.timed { Self.framePairs(index, library.frames, radius: Self.frameRadius) }
            let chosen = pieces == MultiIndexHash.pieceCount(for: count) ? " (the piece count chosen for n)" : ""
            Self.report(count, "multi-index hashing, \(pieces) pieces\(chosen): build \(Self.format(build)) s, query", query, pairs: pairs)
            if reference > 0 { #expect(pairs == reference, "multi-index hashing is exact") }
        }
        searchWithPlans(library)
    }

    /// The plans measured: the default, and the full one (every window at 8 bits, grouping's
    /// candidates before this benchmark), which is timed on a sample of rows above 100,000.
    static let plans: [(String, CandidatePlan)] = {
        var plans: [(String, CandidatePlan)] = [("default plan", CandidatePlan())]
        for pieces in [3, 4, 5] {
            var plan = CandidatePlan()
            plan.pieces = pieces
            plans.append(("default plan at \(pieces) pieces", plan))
        }
        var exact = CandidatePlan()
        exact.pieces = 4
        exact.framePieceRadius = nil
        exact.windowPieceRadius = nil
        plans.append(("default windows, exact, 4 pieces", exact))
        exact.framePieceRadius = 1
        plans.append(("default windows exact, frames at piece radius 1, 4 pieces", exact))
        plans.append(("full plan: all 56 windows at 8 bits, 9 overlay windows, exact", CandidatePlan.full))
        // What pipeline 4's additions (and rules 43's turned frames, rules 44's centre squares) cost, each left out of the default plan.
        var noMirrors = CandidatePlan()
        noMirrors.mirrors = false
        plans.append(("default plan without mirror lookups", noMirrors))
        var noTurns = CandidatePlan()
        noTurns.turns = false
        plans.append(("default plan without turned lookups", noTurns))
        var noSquares = CandidatePlan()
        noSquares.squares = false
        plans.append(("default plan without centre square lookups", noSquares))
        var noBands = CandidatePlan()
        noBands.cropWindows.removeAll { FeatureWindow.bandWindows.contains($0) }
        noBands.overlayWindows.removeAll { FeatureWindow.captionWindows.contains($0) }
        plans.append(("default plan without bands", noBands))
        return plans
    }()

    /// `CandidateSearch` on every core, whole (or on a sample of rows, scaled), with the peak
    /// RSS of the process after it, and which planted copies each plan can reach.
    func searchWithPlans(_ library: RealisticLibrary) {
        // CULL_BENCH_PLANS=all times every plan (the others on a sample of rows);
        // CULL_BENCH_PLANS=additions the default plan and the default without each of pipeline
        // 4's additions, every one on every row; CULL_BENCH_PLANS=batches the default plan
        // searched query by query too (`BatchedSearch` against the plain loop); by default
        // only the default plan.
        let choice = Self.environment["CULL_BENCH_PLANS"]
        if choice == "batches" {
            let search = CandidateSearch(library.compactHashes(plan: CandidatePlan()))
            for batched in [true, false, true, false] {
                var variant = search
                variant.usesBatches = batched
                let (candidates, seconds) = Self.timed { variant.candidates(threads: Self.cores) }
                Self.report(library.count, "CandidateSearch, default plan, \(batched ? "batched" : "query by query"), \(Self.cores) threads: search",
                            seconds, pairs: candidates.count)
            }
            Self.say("candidates n=\(library.count): peak RSS: \(Self.peakRSS()) MiB")
        }
        // CULL_BENCH_PLANS=overlay-batches: the default plan's search with the overlay passes'
        // batches of 24,576 rows (before the twenty-eighth session) and of the default size, in turn.
        if choice == "overlay-batches" {
            let search = CandidateSearch(library.compactHashes(plan: CandidatePlan()), threads: Self.cores)
            for rows in [6 * BatchedSearch.rowsPerBatch, BatchedSearch.overlayRowsPerBatch, 6 * BatchedSearch.rowsPerBatch, BatchedSearch.overlayRowsPerBatch,
                         6 * BatchedSearch.rowsPerBatch, BatchedSearch.overlayRowsPerBatch] {
                var variant = search
                variant.overlayRowsPerBatch = rows
                let (candidates, seconds) = Self.timed { variant.candidates(threads: Self.cores) }
                Self.report(library.count, "CandidateSearch, default plan, overlay batches of \(rows) rows, \(Self.cores) threads: search",
                            seconds, pairs: candidates.count)
            }
        }
        // CULL_BENCH_PLANS=interleaved: the plan grouping uses at this size (`sized(for:)`) with
        // its interleaved windows in the second and third cuts, the corner windows alone there,
        // the interleaved windows in the second cut only, and in neither, in turn, tables built
        // each time.
        if choice == "interleaved" {
            let sized = CandidatePlan().sized(for: library.count)
            var cornersOnly = sized, dealtOnly = sized, without = sized
            cornersOnly.interleavedCropWindows = CandidatePlan.cornerCropWindows
            dealtOnly.interleavedCuts = [.dealt]
            without.interleavedCropWindows = []
            func name(_ plan: CandidatePlan) -> String {
                let windows = plan.interleavedCropWindows == CandidatePlan.cornerCropWindows ? "corners" : "windows \(plan.interleavedCropWindows)"
                return plan.interleavedCropWindows.isEmpty ? "first cut only"
                    : plan.interleavedCuts.count == 1 ? "\(windows) in a second cut" : "\(windows) in a second and third cut"
            }
            for plan in (0..<3).flatMap({ _ in [sized, cornersOnly, dealtOnly, without] }) {
                let hashes = library.compactHashes(plan: plan)
                let ((candidates, build), seconds) = Self.timed {
                    let (search, build) = Self.timed { CandidateSearch(hashes, threads: Self.cores) }
                    return (search.candidates(threads: Self.cores), build)
                }
                Self.report(library.count, "CandidateSearch, plan for \(library.count) rows, \(name(plan)), "
                            + "\(Self.cores) threads: tables \(Self.format(build)) s, tables and search", seconds, pairs: candidates.count)
            }
            Self.say("candidates n=\(library.count): peak RSS: \(Self.peakRSS()) MiB")
        }
        for (name, plan) in Self.plans where choice == "all" || plan == CandidatePlan() || (choice == "additions" && name.hasPrefix("default plan without")) {
            let hashes = library.compactHashes(plan: plan)
            let (search, build) = Self.timed { CandidateSearch(hashes, threads: Self.cores) }
            let sampled = choice == "all" && plan != CandidatePlan() && library.count > 20_000
            let step = sampled ? library.count / 20_000 : 1
            let (candidates, seconds) = Self.timed {
                sampled ? search.candidates(threads: Self.cores, rows: Array(stride(from: 0, to: library.count, by: step)))
                        : search.candidates(threads: Self.cores)
            }
            let how = sampled ? " (\(library.count / step) rows, scaled)" : ""
            Self.report(library.count, "CandidateSearch, \(name), \(Self.cores) threads\(how): build \(Self.format(build)) s, search",
                        seconds * Double(step), pairs: candidates.count * step)
            Self.say("candidates n=\(library.count): peak RSS after \(name): \(Self.peakRSS()) MiB")
            if !sampled { plantedFound(library, candidates, name: name) }
            plantedWithinReach(library, plan: plan, name: name)
        }
    }

    /// How many planted copies a plan can reach at all (an exact search finds all of those),
    /// by edit.
    func plantedWithinReach(_ library: RealisticLibrary, plan: CandidatePlan, name: String) {
        var byEdit: [String: (within: Int, all: Int)] = [:]
        for row in 0..<library.count where library.copyOf[row] >= 0 {
            let within = plan.reaches(library.photo(row), library.photo(Int(library.copyOf[row])),
                                      pieces: plan.pieces ?? MultiIndexHash.pieceCount(for: library.count))
            let edit = library.model.transforms[Int(library.edit[row])]
            byEdit[edit, default: (0, 0)].all += 1
            if within { byEdit[edit, default: (0, 0)].within += 1 }
        }
        let total = byEdit.values.reduce((0, 0)) { ($0.0 + $1.within, $0.1 + $1.all) }
        Self.say("candidates n=\(library.count): planted copies within reach of the \(name): \(total.0)/\(total.1); short: "
              + byEdit.sorted { $0.key < $1.key }.filter { $0.value.within < $0.value.all }
                .map { "\($0.key) \($0.value.within)/\($0.value.all)" }.joined(separator: ", "))
    }

    /// How many planted copies the search really paired with their photo (any slot).
    func plantedFound(_ library: RealisticLibrary, _ candidates: [Candidate], name: String) {
        var pairs = Set<UInt64>()
        pairs.reserveCapacity(candidates.count)
        for c in candidates { pairs.insert(UInt64(UInt32(min(c.a, c.b))) << 32 | UInt64(UInt32(max(c.a, c.b)))) }
        var found = 0, planted = 0
        // A family (a photo and its copies) is found when the search pairs one of its copies with the photo.
        var families: [Int32: Bool] = [:]
        for row in 0..<library.count where library.copyOf[row] >= 0 {
            planted += 1
            let original = Int(library.copyOf[row])
            let paired = pairs.contains(UInt64(UInt32(min(row, original))) << 32 | UInt64(UInt32(max(row, original))))
            if paired { found += 1 }
            families[library.copyOf[row]] = (families[library.copyOf[row]] ?? false) || paired
        }
        Self.say("candidates n=\(library.count): planted copies paired with their photo by the \(name): \(found)/\(planted); "
                 + "families with a copy paired: \(families.values.filter { $0 }.count)/\(families.count)")
    }

    /// The process's peak resident set (VmHWM), in MiB.
    static func peakRSS() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return -1 }
        return kilobytes / 1024
    }

    // MARK: methods

    /// Pairs (a < b) of frames within `radius`, every pair's popcount, rows split in blocks
    /// over every core (the second loop runs over a block that stays in cache).
    static func bruteForcePairs(_ hashes: [UInt64], radius: Int) -> Int {
        let block = 4096
        let blocks = (hashes.count + block - 1) / block
        return parallelSum(blocks) { ib in
            var pairs = 0
            hashes.withUnsafeBufferPointer { h in
                let aRange = ib * block..<min(h.count, (ib + 1) * block)
                for jb in ib..<blocks {
                    let bRange = jb * block..<min(h.count, (jb + 1) * block)
                    for a in aRange {
                        let query = h[a]
                        for b in max(bRange.lowerBound, a + 1)..<max(bRange.upperBound, a + 1) where (h[b] ^ query).nonzeroBitCount <= radius {
                            pairs += 1
                        }
                    }
                }
            }
            return pairs
        }
    }

    static func framePairs(_ index: MultiIndexHash, _ hashes: [UInt64], radius: Int) -> Int {
        parallelSum(hashes.count) { a in
            var pairs = 0
            index.forEachNeighbour(of: hashes[a], within: radius) { b, _ in if b > a { pairs += 1 } }
            return pairs
        }
    }

    /// Σ body(i) for i in 0..<count, over every core, in interleaved chunks.
    static func parallelSum(_ count: Int, _ body: @Sendable @escaping (Int) -> Int) -> Int {
        let total = Atomic<Int>(0)
        let next = Atomic<Int>(0)
        let chunk = 256
        DispatchQueue.concurrentPerform(iterations: cores) { _ in
            var sum = 0
            while true {
                let start = next.add(chunk, ordering: .relaxed).oldValue
                if start >= count { break }
                for i in start..<min(count, start + chunk) { sum += body(i) }
            }
            total.add(sum, ordering: .relaxed)
        }
        return total.load(ordering: .relaxed)
    }

    static func timed<T>(_ body: () -> T) -> (T, Double) {
        let start = ContinuousClock.now
        let value = body()
        let elapsed = ContinuousClock.now - start
        return (value, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    static func report(_ count: Int, _ method: String, _ seconds: Double, pairs: Int) {
        Self.say("candidates n=\(count): \(method): \(format(seconds)) s, \(pairs) pairs")
    }

    /// Prints a figure at once (standard error is unbuffered; bench/grouping.sh reads both).
    static func say(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }

    /// The share of ones per bit position: min, median and max over the 64 positions.
    static func bitBalance(_ hashes: [UInt64]) -> String {
        let shares = (0..<64).map { bit in Double(hashes.reduce(0) { $0 + Int(($1 >> UInt64(bit)) & 1) }) / Double(max(1, hashes.count)) }.sorted()
        return String(format: "ones per bit position: min %.2f, median %.2f, max %.2f", shares[0], shares[32], shares[63])
    }
}

/// What the benchmark compares plans by (test code: the search itself never needs it).
extension CandidatePlan {
    /// Every window at 8 bits and the nine overlay windows: what grouping compared before the
    /// plan was measured (the reference for what a smaller plan loses).
    static let full = CandidatePlan(frameRadius: 10, cropWindows: Array(FeatureWindow.crops.indices), cropRadius: 8,
                                    overlayWindows: FeatureWindow.overlayWindows, overlayRadius: 8, pieces: 4,
                                    framePieceRadius: nil, windowPieceRadius: nil)

    /// The pairings within reach (`pairingsWithinReach`) that the tables' probes return, on
    /// tables of `pieces` pieces (what a search with this plan hands the judge for the pair).
    func probedPairings(_ a: GroupingPhoto, _ b: GroupingPhoto, pieces: Int) -> [Grouper.Pairing] {
        pairingsWithinReach(a, b).filter { returns($0, a, b, pieces: pieces) }
    }

    /// Whether a search with this plan, on tables of `pieces` pieces, pairs the two photos.
    func reaches(_ a: GroupingPhoto, _ b: GroupingPhoto, pieces: Int) -> Bool {
        func close(_ x: UInt64, _ y: UInt64, _ radius: Int, _ pieceRadius: Int?) -> Bool {
            guard (x ^ y).nonzeroBitCount <= radius else { return false }
            return pieceRadius.map { MultiIndexHash.agreeOnAPiece(x, y, pieces: pieces, within: $0) } ?? true
        }
        if close(a.pHash, b.pHash, frameRadius, framePieceRadius) { return true }
        if mirrors, let mirrorA = a.mirrorPHash, let mirrorB = b.mirrorPHash,
           close(mirrorA, b.pHash, frameRadius, framePieceRadius) || close(mirrorB, a.pHash, frameRadius, framePieceRadius) { return true }
        if contents {
            let contentA = a.contentBox == nil ? nil : a.contentPHash, contentB = b.contentBox == nil ? nil : b.contentPHash
            if let contentA, close(contentA, b.pHash, frameRadius, framePieceRadius) { return true }
            if let contentB, close(contentB, a.pHash, frameRadius, framePieceRadius) { return true }
            if let contentA, let contentB, close(contentA, contentB, frameRadius, framePieceRadius) { return true }
        }
        guard a.windowPHashes.count == FeatureWindow.hashedCount, b.windowPHashes.count == FeatureWindow.hashedCount else { return false }
        for k in probedCropWindows {
            let pieceRadius = cropWindows.contains(k) ? windowPieceRadius : 0
            let radius = cropRadius(ofWindow: k)
            if close(a.windowPHashes[k], b.pHash, radius, pieceRadius) || close(b.windowPHashes[k], a.pHash, radius, pieceRadius) { return true }
            if (a.windowPHashes[k] ^ b.pHash).nonzeroBitCount <= radius && interleavedProbe(k, a.windowPHashes[k], b.pHash, pieces: pieces)
                || (b.windowPHashes[k] ^ a.pHash).nonzeroBitCount <= radius && interleavedProbe(k, b.windowPHashes[k], a.pHash, pieces: pieces) { return true }
        }
        return overlayWindows.contains { close(a.windowPHashes[$0], b.windowPHashes[$0], overlayRadius, windowPieceRadius) }
    }
}
