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
/// `MultiIndexHash.pieceCount` picks), today's `HashIndex`, and the cost of the window searches
/// (crops: a frame against every window table; overlays: a window against its own table),
/// measured on a sample of queries and scaled to all rows. And how many planted copies are
/// within the candidate thresholds at all (the most any exact index can find).
@Suite("Candidate search at library scale (benchmark)", .timeLimit(.minutes(30)))
struct CandidateSearchBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let sizes: [Int] = (environment["CULL_BENCH_CANDIDATES"] ?? "").split(separator: ",").compactMap { Int($0) }
    static let floorMax = Int(environment["CULL_BENCH_FLOOR_MAX"] ?? "") ?? 300_000
    static let frameRadius = 10, windowRadius = 8
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    @Test("candidate search on N realistic rows", .enabled(if: !sizes.isEmpty), .timeLimit(.minutes(60)), arguments: sizes)
    func scale(count: Int) throws {
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        let library = RealisticLibrary.generate(count: count, model: model)
        let planted = library.copyOf.filter { $0 >= 0 }.count
        print("candidates n=\(count): \(model.originals.count) real originals, \(model.families.values.map(\.count).reduce(0, +)) real edited copies; \(planted) planted copies")
        print("candidates n=\(count): bit balance of frames: \(Self.bitBalance(library.frames))")

        var reference = 0
        if count <= Self.floorMax {
            let (pairs, seconds) = Self.timed { Self.bruteForcePairs(library.frames, radius: Self.frameRadius) }
            reference = pairs
            Self.report(count, "floor: all-pairs popcount, \(Self.cores) threads", seconds, pairs: pairs)
        } else {
            print("candidates n=\(count): floor not run above \(Self.floorMax) rows (n² pairs); see the smaller sizes")
        }
        for pieces in [3, 4, 5] {
            let (index, build) = Self.timed { MultiIndexHash(library.frames, pieces: pieces) }
            let (pairs, query) = Self.timed { Self.framePairs(index, library.frames, radius: Self.frameRadius) }
            let chosen = pieces == MultiIndexHash.pieceCount(for: count) ? " (the piece count chosen for n)" : ""
            Self.report(count, "multi-index hashing, \(pieces) pieces\(chosen): build \(Self.format(build)) s, query", query, pairs: pairs)
            if reference > 0 { #expect(pairs == reference, "multi-index hashing is exact") }
        }
        if count <= 100_000 {
            let (pairs, seconds) = Self.timed {
                let index = HashIndex(library.frames)
                var pairs = 0
                for (a, hash) in library.frames.enumerated() {
                    var seen = Set<Int>()
                    index.forEachNeighbour(of: hash, within: Self.frameRadius) { b in if b > a { seen.insert(b) } }
                    pairs += seen.count
                }
                return pairs
            }
            Self.report(count, "today's HashIndex (4 × 16 bits), one thread", seconds, pairs: pairs)
        }
        windowCost(library)
        plantedWithinThresholds(library)
    }

    /// Crops (frame → each of the 50 window tables) and overlays (9 windows → their own
    /// tables), with 4-piece multi-index hashing, timed on a sample of queries.
    func windowCost(_ library: RealisticLibrary) {
        let sample = Array(stride(from: 0, to: library.count, by: max(1, library.count / 20_000)))
        let windowTables = (0..<RealisticLibrary.windowCount).map { k in
            MultiIndexHash((0..<library.count).map { library.window($0, k) }, pieces: 4)
        }
        let (crops, cropSeconds) = Self.timed {
            Self.parallelSum(sample.count) { i in
                var found = 0
                for table in windowTables {
                    table.forEachNeighbour(of: library.frames[sample[i]], within: Self.windowRadius) { b, _ in if b != sample[i] { found += 1 } }
                }
                return found
            }
        }
        let (overlays, overlaySeconds) = Self.timed {
            Self.parallelSum(sample.count) { i in
                var found = 0
                for k in FeatureWindow.overlayWindows {
                    windowTables[k].forEachNeighbour(of: library.window(sample[i], k), within: Self.windowRadius) { b, _ in if b != sample[i] { found += 1 } }
                }
                return found
            }
        }
        let scale = Double(library.count) / Double(sample.count)
        Self.report(library.count, "crops: frame vs 50 window tables (\(sample.count) queries, scaled)", cropSeconds * scale, pairs: Int(Double(crops) * scale))
        Self.report(library.count, "overlays: 9 windows vs their tables (\(sample.count) queries, scaled)", overlaySeconds * scale, pairs: Int(Double(overlays) * scale))
    }

    /// How many planted copies are within a candidate threshold of their photo at all, by edit.
    func plantedWithinThresholds(_ library: RealisticLibrary) {
        var byEdit: [String: (within: Int, all: Int)] = [:]
        for row in 0..<library.count where library.copyOf[row] >= 0 {
            let photo = Int(library.copyOf[row])
            let distance = Grouper.closestHashDistance(library.photo(row), library.photo(photo))
            let frames = (library.frames[row] ^ library.frames[photo]).nonzeroBitCount
            let within = frames <= Self.frameRadius || distance <= Self.windowRadius
            let edit = library.edit[row] ?? "?"
            byEdit[edit, default: (0, 0)].all += 1
            if within { byEdit[edit, default: (0, 0)].within += 1 }
        }
        let total = byEdit.values.reduce((0, 0)) { ($0.0 + $1.within, $0.1 + $1.all) }
        print("candidates n=\(library.count): planted copies within a candidate threshold: \(total.0)/\(total.1); by edit: "
              + byEdit.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.within)/\($0.value.all)" }.joined(separator: ", "))
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
        print("candidates n=\(count): \(method): \(format(seconds)) s, \(pairs) pairs")
    }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }

    /// The share of ones per bit position: min, median and max over the 64 positions.
    static func bitBalance(_ hashes: [UInt64]) -> String {
        let shares = (0..<64).map { bit in Double(hashes.reduce(0) { $0 + Int(($1 >> UInt64(bit)) & 1) }) / Double(max(1, hashes.count)) }.sorted()
        return String(format: "ones per bit position: min %.2f, median %.2f, max %.2f", shares[0], shares[32], shares[63])
    }
}
