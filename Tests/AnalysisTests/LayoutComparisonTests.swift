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
}
