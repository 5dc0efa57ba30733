@testable import Analysis
import Testing

/// The judge's fast paths (`LayoutThumbnail.ranks` sorting packed integers, `difference`
/// keeping only the largest errors aside) give what the plain definitions give.
@Suite("Layout comparison")
struct LayoutComparisonTests {
    /// The definition: a stable sort by value, ties (within `tieWidth`) sharing their mean rank.
    static func referenceRanks(_ values: [Float]) -> [Float] {
        let order = values.indices.sorted { values[$0] != values[$1] ? values[$0] < values[$1] : $0 < $1 }
        var out = [Float](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && values[order[end]] - values[order[start]] < LayoutThumbnail.tieWidth { end += 1 }
            for position in start..<end { out[order[position]] = Float(start + end - 1) / 2 / Float(values.count) }
            start = end
        }
        return out
    }

    static func referenceDifference(_ a: [Float], _ b: [Float]) -> Float {
        let errors = zip(a, b).map { abs($0 - $1) }.sorted()
        let kept = max(1, Int(Double(errors.count) * (1 - LayoutThumbnail.trimmedShare)))
        return errors[..<kept].reduce(0, +) / Float(kept)
    }

    @Test("ranks and trimmed differences equal the definitions, ties, clipped cells and zeros included")
    func sameAsDefinitions() {
        var generator = SystemRandomNumberGenerator()
        let cells = LayoutThumbnail.comparisonSide * LayoutThumbnail.comparisonSide
        for trial in 0..<500 {
            // Some windows mostly flat or clipped (many ties), some of few distinct levels.
            let levels: [Float] = trial % 3 == 0 ? [0, 0.05, 12, 255, 255] : []
            func window() -> [Float] {
                (0..<cells).map { _ in levels.isEmpty ? Float.random(in: 0...255, using: &generator).rounded(.down) / (Bool.random(using: &generator) ? 1 : 4)
                                                      : levels.randomElement(using: &generator)! }
            }
            let a = window(), b = window()
            #expect(LayoutThumbnail.ranks(a) == Self.referenceRanks(a))
            let ra = LayoutThumbnail.ranks(a), rb = LayoutThumbnail.ranks(b)
            #expect(abs(LayoutThumbnail.difference(ra, rb) - Self.referenceDifference(ra, rb)) < 1e-5)
        }
        #expect(LayoutThumbnail.difference([Float](repeating: 0.5, count: cells), [Float](repeating: 0.5, count: cells)) == 0)
    }

    @Test("the bucket sort under ranks sorts as the standard sort does: gray levels, values within one level, any bits, one value for all")
    func bucketSortAgreesWithSort() {
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<400 {
            let count = trial % 50 == 0 ? trial % 3 : Int.random(in: 2...400, using: &generator)
            // Upper halves: gray levels, values crowded into one level, any bits (NaNs and
            // negatives included), few distinct values, or one value for all.
            let pool: [UInt64] = (0..<(trial % 5 == 0 ? 1 : trial % 5 == 1 ? 4 : 1_000)).map { _ in
                let bits: UInt32 = switch trial % 4 {
                case 0: Float.random(in: 0...255, using: &generator).bitPattern
                case 1: Float.random(in: 17...17.9, using: &generator).bitPattern
                case 2: Float.random(in: 0...1, using: &generator).bitPattern
                default: UInt32.random(in: 0...UInt32.max, using: &generator)
                }
                return UInt64(bits)
            }
            var keys = (0..<count).map { pool.randomElement(using: &generator)! << 32 | UInt64($0) }
            let expected = keys.sorted()
            SortKeys.sortByUpperHalf(&keys)
            #expect(keys == expected)
        }
    }

    @Test("cells ranked in one pass (a cache's refill) carry the ranks, keys and largest tie that counting them from the ranks gives")
    func refilledCellsAgreeWithCountedTies() {
        var generator = SystemRandomNumberGenerator()
        let cells = LayoutThumbnail.comparisonSide * LayoutThumbnail.comparisonSide
        var refilled = LayoutThumbnail.RankedCells([])
        for trial in 0..<600 {
            // Windows of a few levels (several ties of one size, which one is largest decides
            // the flat area), values within a tie's width of each other, and plain gray levels.
            let levels: [Float] = (0..<(trial % 4 + 2)).map { _ in Float(Int.random(in: 0...255, using: &generator)) }
            let window: [Float] = (0..<cells).map { _ in
                switch trial % 3 {
                case 0: levels.randomElement(using: &generator)!
                case 1: levels.randomElement(using: &generator)! + Float.random(in: 0..<0.3, using: &generator)
                default: Float.random(in: 0...255, using: &generator)
                }
            }
            let counted = LayoutThumbnail.RankedCells(Self.referenceRanks(window))
            refilled.refill(averages: cells) { out in for index in 0..<cells { out[index] = window[index] } }
            #expect(refilled.ranks == counted.ranks && refilled.keys == counted.keys)
            #expect(refilled.tieKey == counted.tieKey && refilled.tieCount == counted.tieCount)
            let other = LayoutThumbnail.RankedCells(LayoutThumbnail.ranks(window.reversed()))
            #expect(LayoutThumbnail.evidenceDifference(refilled, other) == LayoutThumbnail.evidenceDifference(counted, other))
        }
    }

    /// A 12×12 window: `background` everywhere, `shape` on the cells of `box` (rows, columns).
    static func flatWindow(background: Float, shape: Float, rows: Range<Int>, columns: Range<Int>) -> [Float] {
        let side = LayoutThumbnail.comparisonSide
        return (0..<side * side).map { rows.contains($0 / side) && columns.contains($0 % side) ? shape : background }
    }

    @Test("flat backgrounds carry no evidence: shapes in other places differ, the same shapes agree, textured windows are compared as before")
    func evidenceOnFlatBackgrounds() {
        // Two pictures of a square on a plain background, the squares apart: most cells are
        // background in both, and the plain difference calls them alike.
        let a4 = LayoutThumbnail.ranks(Self.flatWindow(background: 40, shape: 200, rows: 0..<4, columns: 0..<4))
        let b4 = LayoutThumbnail.ranks(Self.flatWindow(background: 90, shape: 220, rows: 7..<11, columns: 7..<11))
        #expect(LayoutThumbnail.difference(a4, b4) < 0.09, "the weakness: \(LayoutThumbnail.difference(a4, b4))")
        #expect(LayoutThumbnail.evidenceDifference(a4, b4) > 0.3)
        // The same picture re-toned: the square's cells agree, so it is confirmed.
        let a = LayoutThumbnail.ranks(Self.flatWindow(background: 40, shape: 200, rows: 0..<5, columns: 0..<5))
        let retoned = LayoutThumbnail.ranks(Self.flatWindow(background: 60, shape: 230, rows: 0..<5, columns: 0..<5))
        #expect(LayoutThumbnail.evidenceDifference(a, retoned) == 0)
        // A shape under an eighth of the frame leaves too little to confirm on.
        let small = LayoutThumbnail.ranks(Self.flatWindow(background: 40, shape: 200, rows: 0..<4, columns: 0..<4))
        #expect(LayoutThumbnail.evidenceDifference(small, small) == 1)
        // All background: nothing to confirm on.
        let blank = LayoutThumbnail.ranks([Float](repeating: 128, count: 144))
        #expect(LayoutThumbnail.evidenceDifference(blank, blank) == 1)
        // Without a large tie (a textured photo) it is the plain difference.
        var generator = SystemRandomNumberGenerator()
        let x = LayoutThumbnail.ranks((0..<144).map { _ in Float.random(in: 0...255, using: &generator) })
        let y = LayoutThumbnail.ranks((0..<144).map { _ in Float.random(in: 0...255, using: &generator) })
        #expect(abs(LayoutThumbnail.evidenceDifference(x, y) - LayoutThumbnail.difference(x, y)) < 1e-5)
    }

    /// The evidence difference works in integer rank keys; the float difference on the ranks
    /// of the cells it keeps is the definition it must agree with.
    @Test("the evidence difference in rank keys agrees with the float difference of the cells kept, flat areas or not")
    func integerEvidenceDifference() {
        var generator = SplitMix64(seed: 29)
        let n = LayoutThumbnail.comparisonSide * LayoutThumbnail.comparisonSide
        func window(flatShare: Double) -> [Float] {
            // A plain background on about `flatShare` of the cells, a few gray levels elsewhere
            // (ties of several cells), the rest textured.
            (0..<n).map { _ in
                Double.random(in: 0..<1, using: &generator) < flatShare ? 40
                    : Bool.random(using: &generator) ? Float(Int.random(in: 0..<6, using: &generator) * 40) : Float.random(in: 0...255, using: &generator)
            }
        }
        var flatCompared = 0
        for trial in 0..<600 {
            let share = [0, 0.3, 0.6, 0.9][trial % 4]
            let a = LayoutThumbnail.RankedCells(LayoutThumbnail.ranks(window(flatShare: share)))
            let b = LayoutThumbnail.RankedCells(LayoutThumbnail.ranks(window(flatShare: share)))
            let flat = Int(Double(n) * LayoutThumbnail.flatShare)
            var expected: Float
            if a.tieCount >= flat && b.tieCount >= flat {
                let kept = (0..<n).filter {
                    !(LayoutThumbnail.RankedCells.key(a.ranks[$0], count: n) == a.tieKey && LayoutThumbnail.RankedCells.key(b.ranks[$0], count: n) == b.tieKey)
                }
                expected = kept.count < LayoutThumbnail.minimumEvidence ? 1 : LayoutThumbnail.difference(kept.map { a.ranks[$0] }, kept.map { b.ranks[$0] })
                flatCompared += 1
            } else {
                expected = LayoutThumbnail.difference(a.ranks, b.ranks)
            }
            let found = LayoutThumbnail.evidenceDifference(a, b)
            #expect(abs(found - expected) < 1e-5, "trial \(trial): \(found) against \(expected)")
        }
        #expect(flatCompared > 100, "too few windows with flat areas: \(flatCompared)")
    }

    @Test("one window's averages from running sums on the stack are a sampler's, for thumbnails and detail layouts, on every grid the judge asks")
    func averagesOfOneWindow() {
        var random = SplitMix64(seed: 5)
        let windows = [FeatureWindow.full, FeatureWindow.crops[17], FeatureWindow.crops[53], FeatureWindow(x: 0.03, y: 0.11, width: 0.81, height: 0.77)]
        for side in [LayoutThumbnail.side, DetailLayout.side] {
            let plane = (0..<side * side).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let sampler = AreaSampler(GrayImage(width: side, height: side, pixels: plane))
            for window in windows {
                for grid in [ChromaLayout.comparisonSide, ColourMask.side, 7] {
                    let averages = LayoutThumbnail.averages(ofPlane: plane, side: side, in: window, columns: grid, rows: grid)
                    #expect(averages == sampler.cells(window, columns: grid, rows: grid), "side \(side), \(window), grid \(grid)")
                }
            }
        }
    }
}
