/// Tone matching onto one view (`LocalChange`, `RegionalGain`): each value of another view is
/// replaced by the target's value of the same rank, a histogram match. The target's side is
/// worked out once, for every rotation of the other view compared with it.
///
/// Ranked by counting, by gray level (values within one level share the middle rank of their
/// bin): no sort, and a level is far below `LocalChange.levelTolerance`.
struct ToneTarget {
    /// The target's values in bin order (within a bin, in index order): sorted to a level.
    private let sorted: [Float]

    static let bins = 256 * binsPerLevel
    /// Histogram bins per gray level.
    static let binsPerLevel = 1

    @inline(__always)
    private static func bin(_ value: Float) -> Int { min(bins - 1, max(0, Int(value * Float(binsPerLevel)))) }

    init(_ target: [Float]) {
        var starts = [Int](repeating: 0, count: Self.bins + 1)
        for value in target { starts[Self.bin(value) + 1] += 1 }
        for index in 1...Self.bins { starts[index] += starts[index - 1] }
        var sorted = [Float](repeating: 0, count: target.count)
        for value in target {
            sorted[starts[Self.bin(value)]] = value
            starts[Self.bin(value)] += 1
        }
        self.sorted = sorted
    }

    /// `values` matched onto the target. Each bin's value is worked out once (at most 256 for
    /// the 576 cells of a view).
    func matched(_ values: [Float]) -> [Float] {
        guard !values.isEmpty else { return [] }
        precondition(!sorted.isEmpty, "a target to match onto")
        let bins = Self.bins
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: bins) { counts in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: bins) { level in
                counts.initialize(repeating: 0)
                for value in values { counts[Self.bin(value)] += 1 }
                let scale = Double(sorted.count) / Double(values.count)
                var before = 0
                for b in 0..<bins {
                    let count = counts[b]
                    if count > 0 {
                        let middle = (Double(before) + Double(count - 1) / 2) * scale
                        // (Half added and truncated, not `rounded()`, a call into libm: `middle` is
                        // never negative, and a half rounds up either way.)
                        level[b] = sorted[min(sorted.count - 1, max(0, Int(middle + 0.5)))]
                    }
                    before += count
                }
                return values.map { level[Self.bin($0)] }
            }
        }
    }
}
