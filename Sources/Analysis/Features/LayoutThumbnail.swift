/// A 32×32 area-averaged grayscale thumbnail of the whole (oriented) frame, and the aligned,
/// occlusion-tolerant comparison that confirms a near-duplicate candidate.
///
/// Hashes find candidates cheaply but keep one bit per coefficient, so two different dark
/// photos that carry the same white watermark can hash alike. The thumbnail keeps the layout
/// itself: a candidate pair is confirmed by resampling the matching windows of both
/// thumbnails to 12×12, replacing each cell by its rank (so brightness, contrast and gamma
/// edits cancel and a bright overlay cannot set the scale), and taking the mean absolute
/// difference of the best 90% of cells (so a local overlay, up to a tenth of the frame, is
/// left out rather than averaged in).
public enum LayoutThumbnail {
    public static let side = 32
    /// Cells per side when two windows are compared.
    public static let comparisonSide = 12
    /// The share of cells, worst first, left out of the difference.
    public static let trimmedShare = 0.1
    /// Values closer than this (in gray levels) count as equal when ranking.
    static let tieWidth: Float = 0.1
    /// A tie this large (a share of the cells) is a flat area: a plain background, a clipped
    /// sky. Where both windows are flat they agree whatever they show (`evidenceDifference`).
    public static let flatShare = 0.2
    /// Fewer cells than this outside the shared flat area: nothing to confirm on.
    static let minimumEvidence = 18

    /// From the whole frame's `side`² area averages.
    static func make(cells: [Float]) -> [UInt8] {
        precondition(cells.count == side * side)
        return cells.map { UInt8(max(0, min(255, $0.rounded()))) }
    }

    /// The thumbnail (or a textured photo's `DetailLayout`) of the mirror image: each row reversed.
    public static func mirrored(_ thumbnail: [UInt8]) -> [UInt8] {
        mirrored(thumbnail, side: planeSide(thumbnail))
    }

    /// The side of a plane of the frame the judge reads: a thumbnail's, or a detail layout's.
    static func planeSide(_ plane: [UInt8]) -> Int {
        if DetailLayout.isLayout(byteCount: plane.count) { return DetailLayout.side }
        precondition(plane.count == side * side, "thumbnail must be \(side)×\(side)")
        return side
    }

    /// The mirror image of a `planeSide`² plane of the frame (a thumbnail, or a `DetailLayout`).
    public static func mirrored(_ plane: [UInt8], side planeSide: Int) -> [UInt8] {
        precondition(plane.count == planeSide * planeSide, "the plane must be \(planeSide)×\(planeSide)")
        return (0..<planeSide).flatMap { row in plane[row * planeSide ..< (row + 1) * planeSide].reversed() }
    }

    /// The cells of `window` of a thumbnail, area-averaged to `comparisonSide`², as ranks.
    /// Area averaging (not point sampling) integrates the thumbnail's pixels exactly, so a
    /// window of the original and the whole frame of its crop come out nearly equal.
    public static func cells(of thumbnail: [UInt8], in window: FeatureWindow) -> [Float] {
        cells(ofPlane: thumbnail, side: side, in: window)
    }

    /// The same cells from a `planeSide`² plane of the frame: the thumbnail, or a textured
    /// photo's `DetailLayout`, whose cells a crop's window starts inside misstate it less.
    public static func cells(ofPlane plane: [UInt8], side planeSide: Int, in window: FeatureWindow) -> [Float] {
        withRunningSums(of: plane, side: planeSide) { table in
            [Float](unsafeUninitializedCapacity: comparisonCells) { out, initialized in
                cells(ofTable: table, side: planeSide, in: window, into: out)
                initialized = comparisonCells
            }
        }
    }

    /// `columns` × `rows` area averages covering `window` of a `planeSide`² plane of the frame
    /// (not ranked): what a sampler of the plane gives, for callers that resample one window
    /// of it. A sampler's arrays (its image and its table, allocated and freed for each pair
    /// the judge asks about colours) were about 3% of a million realistic rows' grouping (perf).
    public static func averages(ofPlane plane: [UInt8], side planeSide: Int, in window: FeatureWindow, columns: Int, rows: Int) -> [Float] {
        withRunningSums(of: plane, side: planeSide) { table in
            [Float](unsafeUninitializedCapacity: columns * rows) { out, initialized in
                AreaSampler.cells(ofTable: table, width: planeSide, height: planeSide, window, columns: columns, rows: rows, into: out)
                initialized = columns * rows
            }
        }
    }

    /// `body` given the running sums (`AreaSampler.fillTable`) of a `planeSide`² plane, on the
    /// stack: the judge works out millions of windows.
    private static func withRunningSums<Result>(of plane: [UInt8], side planeSide: Int,
                                                _ body: (UnsafeBufferPointer<Double>) -> Result) -> Result {
        precondition(plane.count == planeSide * planeSide, "the plane must be \(planeSide)×\(planeSide)")
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: (planeSide + 1) * (planeSide + 1)) { table in
            plane.withUnsafeBufferPointer { AreaSampler.fillTable(table, of: $0, width: planeSide, height: planeSide) }
            return body(UnsafeBufferPointer(table))
        }
    }

    /// The same, from the thumbnail's running sums (`AreaSampler.fillTable`, `side`² pixels):
    /// for callers that resample several windows of one thumbnail and keep its table.
    public static func cells(ofTable table: UnsafeBufferPointer<Double>, in window: FeatureWindow) -> [Float] {
        [Float](unsafeUninitializedCapacity: comparisonCells) { out, initialized in
            cells(ofTable: table, in: window, into: out)
            initialized = comparisonCells
        }
    }

    /// The same, written to `out` (its first `comparisonCells`).
    public static func cells(ofTable table: UnsafeBufferPointer<Double>, in window: FeatureWindow, into out: UnsafeMutableBufferPointer<Float>) {
        cells(ofTable: table, side: side, in: window, into: out)
    }

    /// The same from the running sums of a `planeSide`² plane.
    static func cells(ofTable table: UnsafeBufferPointer<Double>, side planeSide: Int, in window: FeatureWindow,
                      into out: UnsafeMutableBufferPointer<Float>) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: comparisonCells) { averages in
            AreaSampler.cells(ofTable: table, width: planeSide, height: planeSide, window, columns: comparisonSide, rows: comparisonSide, into: averages)
            rank(UnsafeBufferPointer(averages), into: out)
        }
    }

    /// How many cells a compared window has.
    public static let comparisonCells = comparisonSide * comparisonSide

    /// The same, from a thumbnail's sampler (`sampler(_:)`), for comparing many windows of it.
    public static func cells(of sampler: AreaSampler, in window: FeatureWindow) -> [Float] {
        ranks(sampler.cells(window, columns: comparisonSide, rows: comparisonSide))
    }

    /// A sampler of a thumbnail, or of a textured photo's `DetailLayout`.
    public static func sampler(_ thumbnail: [UInt8]) -> AreaSampler {
        let planeSide = planeSide(thumbnail)
        return AreaSampler(GrayImage(width: planeSide, height: planeSide, pixels: thumbnail))
    }

    /// Each value replaced by its rank among all of them, scaled to 0...1 (ties share their
    /// mean rank; values within a tenth of a gray level are ties). Ranks do not change under
    /// any tone curve that keeps order, so brightness, contrast and gamma edits cancel, and
    /// clipped highlights only become ties.
    public static func ranks(_ values: [Float]) -> [Float] {
        [Float](unsafeUninitializedCapacity: values.count) { out, initialized in
            values.withUnsafeBufferPointer { rank($0, into: out) }
            initialized = values.count
        }
    }

    /// `ranks` of `values`, written to `out` (every one of its first `values.count`).
    static func rank(_ values: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        _ = rank(values, into: out, keys: nil)
    }

    /// The same, each rank's tie key (`RankedCells.key`) written to `keys` as well when given,
    /// and the largest tie's key and size, as `RankedCells` counts them: worked out from the
    /// sorted runs rather than from the ranks again (perf: counting the ranks' keys again was
    /// 2–4% of a million photos' grouping).
    static func rank(_ values: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>,
                     keys tieKeys: UnsafeMutableBufferPointer<UInt16>?) -> (tieKey: Int, tieCount: Int) {
        // Sorted as packed integers (the value's bits above its index): gray levels are never
        // negative, so their bit patterns sort as the values do, and the index keeps equal values
        // in input order, as a stable sort would. A bucket sort (`SortKeys.sortLevels`): judging
        // a million photos' candidates ranks about 7 million windows (perf: this sort was a
        // quarter of grouping's judging time as a generic sort by closure).
        precondition(out.count >= values.count && (tieKeys?.count ?? values.count) >= values.count)
        let count = values.count
        guard count > 0 else { return (0, 0) }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * count) { scratch in
            let keys = UnsafeMutableBufferPointer(rebasing: scratch[..<count])
            SortKeys.sortLevels(count: count, { values[$0] }, keys: keys, spare: UnsafeMutableBufferPointer(rebasing: scratch[count...]))
            @inline(__always) func value(_ position: Int) -> Float { values[SortKeys.index(of: keys[position])] }
            // `RankedCells.countTies` goes through the cells in index order and keeps the first
            // key to reach each new largest count: of the longest runs, the one whose last cell
            // (in index order) comes first.
            var start = 0, tieKey = 0, tieCount = 0, tieLastIndex = Int.max
            while start < count {
                var end = start + 1
                while end < count && value(end) - value(start) < tieWidth { end += 1 }
                let rank = Float(start + end - 1) / 2 / Float(count)
                // The rank times 2n is start + end - 1 (`RankedCells.key`).
                let key = start + end - 1
                var lastIndex = 0
                for position in start..<end {
                    let index = SortKeys.index(of: keys[position])
                    out[index] = rank
                    tieKeys?[index] = UInt16(truncatingIfNeeded: key)
                    lastIndex = max(lastIndex, index)
                }
                if end - start > tieCount || (end - start == tieCount && lastIndex < tieLastIndex) {
                    (tieKey, tieCount, tieLastIndex) = (key, end - start, lastIndex)
                }
                start = end
            }
            return (tieKey, tieCount)
        }
    }

    /// A window's ranked cells (`cells(of:in:)`) and their largest tie, worked out once: the
    /// judge compares one photo's window with many partners' (`LayoutCellCache`), and every
    /// comparison counted both windows' ties again (perf: 3% of a million photos' grouping).
    public struct RankedCells: Sendable {
        public private(set) var ranks: [Float]
        /// Each rank's key (`key`: the rank times 2n, rounded), what `evidenceDifference`
        /// compares.
        private(set) var keys: [UInt16]
        /// The largest group of cells sharing one rank (a plain area, when it covers
        /// `flatShare` of them): its key and how many cells.
        public private(set) var tieKey = 0
        public private(set) var tieCount = 0

        public init(_ ranks: [Float]) {
            self.ranks = ranks
            precondition(2 * ranks.count <= Int(UInt16.max), "too many cells for 16-bit rank keys")
            keys = [UInt16](repeating: 0, count: ranks.count)
            countTies()
        }

        /// These cells made again in place from `fill`, which writes `count` cell values (area
        /// averages, not yet ranked): a cache reuses its entries' storage rather than allocating
        /// two arrays a window (the judge ranks about 5 million windows at a million photos),
        /// and the ranks, their keys and the largest tie come from one pass over the sorted
        /// values (`LayoutThumbnail.rank(_:into:keys:)`). Storage another copy still holds is
        /// copied first, as any array's.
        public mutating func refill(averages count: Int, _ fill: (UnsafeMutableBufferPointer<Float>) -> Void) {
            precondition(2 * count <= Int(UInt16.max), "too many cells for 16-bit rank keys")
            if ranks.count != count {
                ranks = [Float](repeating: 0, count: count)
                keys = [UInt16](repeating: 0, count: count)
            }
            let tie = withUnsafeTemporaryAllocation(of: Float.self, capacity: count) { averages in
                fill(averages)
                return ranks.withUnsafeMutableBufferPointer { ranks in
                    keys.withUnsafeMutableBufferPointer { LayoutThumbnail.rank(UnsafeBufferPointer(averages), into: ranks, keys: $0) }
                }
            }
            (tieKey, tieCount) = tie
        }

        /// The keys of `ranks` and their largest tie, for ranks made elsewhere (`init`): the
        /// same rule `rank(_:into:keys:)` keeps from the sorted runs when cells are refilled
        /// (`LayoutComparisonTests.refilledCellsAgreeWithCountedTies` holds the two equal).
        private mutating func countTies() {
            let n = ranks.count
            guard n > 0 else { (tieKey, tieCount) = (0, 0); return }
            // A rank is (start + end - 1) / 2 / n for the tie at sorted positions start..<end:
            // times 2n, an integer below 2n, so ties are counted in an array, not a dictionary.
            var bestKey = 0, bestCount: Int32 = 0
            ranks.withUnsafeBufferPointer { ranks in
                keys.withUnsafeMutableBufferPointer { keys in
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * n) { counts in
                        counts.initialize(repeating: 0)
                        for index in 0..<n {
                            let k = Self.key(ranks[index], count: n)
                            keys[index] = UInt16(k)
                            let count = counts[k] &+ 1
                            counts[k] = count
                            if count > bestCount { bestKey = k; bestCount = count }
                        }
                    }
                }
            }
            tieKey = bestKey
            tieCount = Int(bestCount)
        }

        /// The tie key of `rank` among `count` cells. (Added half and truncated rather than
        /// `rounded()`, a call into libm: ranks are never negative, and a rank times 2n lies
        /// within rounding error of a whole number, never near a half.)
        @inline(__always)
        static func key(_ rank: Float, count n: Int) -> Int { min(2 * n - 1, max(0, Int(rank * Float(2 * n) + 0.5))) }

        /// The share of the cells in the largest tie, 0 when under `flatShare`: a photo's few
        /// equal cells are no plain area.
        public var plainShare: Float {
            let share = Float(tieCount) / Float(max(1, ranks.count))
            return Double(share) >= flatShare ? share : 0
        }
    }

    /// `difference`, leaving out the cells that lie in the flat area of both windows (each
    /// window's largest tie, when it covers `flatShare` of the cells or more). Cells of a plain
    /// background share one rank, so two different pictures of a few shapes on plain
    /// backgrounds agreed on most cells and were confirmed (bench/RESULTS.md, "Rescans":
    /// precision 0.17 on such a library); what tells them apart is where the shapes are.
    /// With fewer than `minimumEvidence` other cells there is nothing to confirm on: 1.
    /// Windows without such a tie (most photos) get `difference` itself.
    public static func evidenceDifference(_ a: [Float], _ b: [Float]) -> Float {
        evidenceDifference(RankedCells(a), RankedCells(b))
    }

    /// The same, for windows whose ties are worked out. Worked out on the rank keys, in
    /// integers: each cell's error is a whole number of half-steps of rank (|kA − kB|, below
    /// 2n), the errors left out are the largest, counted off a histogram, and the rest are
    /// summed exactly. `difference` on the ranks themselves (floats, the largest found by
    /// insertion) gives the same value to within float rounding, at several times the cost:
    /// the judge compares 4.6 million pairings at a million photos.
    public static func evidenceDifference(_ a: RankedCells, _ b: RankedCells) -> Float {
        precondition(a.keys.count == b.keys.count && !a.keys.isEmpty)
        let n = a.keys.count
        let flat = Int(Double(n) * flatShare)
        let leaveOutFlat = a.tieCount >= flat && b.tieCount >= flat
        return a.keys.withUnsafeBufferPointer { keysA in
            b.keys.withUnsafeBufferPointer { keysB in
                // How many cells have each error, on the stack (no arrays a call).
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * n) { histogram in
                    histogram.initialize(repeating: 0)
                    var total = 0, count = 0, largest = 0
                    let tieA = UInt16(a.tieKey), tieB = UInt16(b.tieKey)
                    // With flat areas, only the cells outside the one both windows share.
                    for index in 0..<n where !(leaveOutFlat && keysA[index] == tieA && keysB[index] == tieB) {
                        let error = abs(Int(keysA[index]) - Int(keysB[index]))
                        total += error
                        histogram[error] &+= 1
                        largest = max(largest, error)
                        count += 1
                    }
                    if leaveOutFlat, count < minimumEvidence { return 1 }
                    let kept = max(1, Int(Double(count) * (1 - trimmedShare)))
                    var left = count - kept, error = largest
                    while left > 0 && error > 0 {
                        let taken = min(left, Int(histogram[error]))
                        total -= taken * error
                        left -= taken
                        error -= 1
                    }
                    return Float(Double(total) / Double(2 * n) / Double(kept))
                }
            }
        }
    }

    /// Mean absolute difference of two windows' normalised cells, the worst `trimmedShare`
    /// left out. Same photo: under 0.05 for re-encodes and tone edits, about 0.15 at most for
    /// a crop of a textured photo; different photos: 0.2 and up (docs/FEATURES.md).
    public static func difference(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count && !a.isEmpty)
        return a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in difference(a, b) } }
    }

    static func difference(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Float>) -> Float {
        precondition(a.count == b.count && !a.isEmpty)
        let kept = max(1, Int(Double(a.count) * (1 - trimmedShare)))
        // The kept errors are all but the `a.count - kept` largest: those are found in a small
        // sorted buffer (15 of 144) instead of sorting every error; on the stack, since the
        // judge calls this millions of times.
        let left = a.count - kept
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: max(left, 1)) { largest in
            largest.initialize(repeating: -1)
            var total: Float = 0
            for index in 0..<a.count {
                let error = abs(a[index] - b[index])
                total += error
                guard left > 0, error > largest[0] else { continue }
                var slot = 0  // largest is ascending: the new error pushes out the smallest kept-out one
                while slot + 1 < left && largest[slot + 1] < error { largest[slot] = largest[slot + 1]; slot += 1 }
                largest[slot] = error
            }
            for slot in 0..<left where largest[slot] > 0 { total -= largest[slot] }
            return max(0, total) / Float(kept)
        }
    }
}
