/// A vignette: brightness that falls off (or rises) smoothly from the centre of the frame to its
/// corners, as a photo editor's vignette and a lens's fall-off give. It is a global edit (one
/// rule over the whole frame, nothing in the scene moved), but it moves the layout's ranks in
/// the corners and reads as regions lit differently (`RegionalGain`, `LocalChange`) all round
/// the frame. So a pair of whole frames is asked how one is lit against the other as a function
/// of the distance from the centre, and that function, fitted, is divided out before the pair
/// is judged again (`PairJudge+Vignette`). docs/FEATURES.md, "Vignettes", has the numbers.
///
/// The model is the gain of the second frame over the first, tone-matched (`ToneTarget`), at a
/// squared distance `s` from the centre (0 at the centre, 1 in the corners, on the frame's own
/// axes, so an oval vignette on a wide frame is round here): `1 + slope·s + curve·s²`. Two terms
/// take in a vignette with a flat middle (its midpoint, its feather) as well as a plain
/// quadratic one. No more terms: the fitted gain is all the correction may explain, and a
/// richer model would explain part of another shot's change of the scene too.
public enum RadialGain {
    /// A gain as a function of `s`: the product of its fitted factors (the fit is made twice,
    /// the second time on the first's correction, as the tone match moves with the correction).
    public struct Profile: Sendable {
        public var factors: [(slope: Float, curve: Float)]

        /// The gain at `s`, relative to the centre's.
        public func gain(_ s: Float) -> Float {
            factors.reduce(1) { $0 * (1 + $1.slope * s + $1.curve * s * s) }
        }

        /// The gain in the corners over the centre's, less one: −0.45 for corners 45% darker.
        public var falloff: Float { gain(1) - 1 }

        /// Whether the gain only falls, or only rises, from the centre to the corners (checked
        /// at each tenth of `s`): a vignette does not brighten a ring and darken the corners.
        public var isMonotone: Bool {
            let samples = (0...10).map { gain(Float($0) / 10) }
            let steps = zip(samples.dropFirst(), samples).map { $0 - $1 }
            return steps.allSatisfy { $0 >= -1e-4 } || steps.allSatisfy { $0 <= 1e-4 }
        }
    }

    /// Levels past which a cell is left out of the fit: clipped highlights no longer follow a
    /// gain, and the darkest cells carry more noise than signal.
    static let fittedLevels: ClosedRange<Float> = 8...247

    /// Cells per side the gain is fitted on: a vignette is smooth, and 16² cells (2×2 of a
    /// layout thumbnail's pixels each) cost a quarter of 32². The fit is asked of pairs of whole
    /// frames close enough to be corrected, most of them two photos alike. On 8² cells the
    /// first fit of the originals' mild vignettes passed the gates in 47 of 73 pairs, on 16² in
    /// 65 (bench/RESULTS.md, "Vignettes").
    public static let fittedSide = 16

    /// The least fall-off (or rise) of the gain to the corners that is a vignette: a tenth.
    /// Less moves no rank past the judge's limits.
    public static let leastFalloff: Float = 0.1
    /// The most: corners lit at a third of the centre's, or three times it, is no vignette an
    /// editor makes.
    public static let mostFalloff: Float = 2.0
    /// The share of the two frames' mismatch (tone-matched, mean absolute difference) the gain
    /// must take away for it to be a vignette: half. On 16² cells, of the 73 development and
    /// holdout originals' strong (45%) and mild (20%) vignettes, 133 of 146 pairs fit a monotone
    /// gain past `leastFalloff` first and 131 of those leave under half the mismatch; of the
    /// 2,628 pairs of two different originals, 661 and 26 (bench/RESULTS.md, "Vignettes").
    public static let explainedShare: Float = 0.5

    /// The vignette of `b` over `a`, two planes of `side`² gray levels (a multiple of
    /// `fittedSide`) covering the same whole frame, if they differ by one: a gain fitted by
    /// least squares on the cells both leave unclipped (`fitOnce`), monotone from the centre to
    /// the corners, between `leastFalloff` and `mostFalloff`, that takes away
    /// `explainedShare` of their mismatch; fitted again on the first's correction (the tone
    /// match moves with it). Nil when it is no vignette, too few cells are left (a quarter) or
    /// the fit is singular.
    public static func vignette(_ a: [UInt8], _ b: [UInt8], side: Int) -> Profile? {
        precondition(a.count == side * side && b.count == side * side && side % fittedSide == 0, "two \(side)² planes")
        let original = cells(a, side: side), copy = cells(b, side: side)
        guard let first = fitOnce(original, copy) else { return nil }
        let firstProfile = Profile(factors: [first.factor])
        guard firstProfile.isMonotone, abs(firstProfile.falloff) >= leastFalloff else { return nil }
        let corrected = copy.indices.map { copy[$0] / firstProfile.gain(squaredRadius($0, side: fittedSide)) }
        guard let second = fitOnce(original, corrected), second.mismatch <= explainedShare * first.mismatch else { return nil }
        let profile = Profile(factors: [first.factor, second.factor])
        guard profile.isMonotone, abs(profile.falloff) >= leastFalloff, profile.gain(1) <= 1 + mostFalloff,
              profile.gain(1) >= 1 / (1 + mostFalloff) else { return nil }
        return profile
    }

    /// The plane averaged to `fittedSide`² cells.
    static func cells(_ plane: [UInt8], side: Int) -> [Float] {
        let step = side / fittedSide, share = 1 / Float(step * step)
        var cells = [Float](repeating: 0, count: fittedSide * fittedSide)
        for y in 0..<side {
            for x in 0..<side { cells[(y / step) * fittedSide + x / step] += Float(plane[y * side + x]) * share }
        }
        return cells
    }

    /// One least-squares fit of `b ≈ m·(α + β·s + γ·s²)` over `fittedSide`² cells, `m` being
    /// `a` tone-matched onto `b`: the factor `(β/α, γ/α)`, and the mismatch it was fitted
    /// from (the mean absolute difference of `b` and `m`).
    static func fitOnce(_ a: [Float], _ b: [Float]) -> (factor: (slope: Float, curve: Float), mismatch: Float)? {
        let matched = ToneTarget(b).matched(a)
        // The normal equations of the three terms m, m·s, m·s², summed in Double: the sums of
        // m²·sᵏ (k = 0…4) and of m·b·sᵏ (k = 0…2).
        var powers = (0.0, 0.0, 0.0, 0.0, 0.0), right = (0.0, 0.0, 0.0)
        var used = 0, mismatch: Float = 0
        for index in matched.indices {
            mismatch += abs(b[index] - matched[index])
            guard fittedLevels.contains(matched[index]) && fittedLevels.contains(b[index]) else { continue }
            let s = Double(squaredRadius(index, side: fittedSide)), m = Double(matched[index])
            let mm = m * m, mb = m * Double(b[index]), s2 = s * s
            powers.0 += mm; powers.1 += mm * s; powers.2 += mm * s2; powers.3 += mm * s2 * s; powers.4 += mm * s2 * s2
            right.0 += mb; right.1 += mb * s; right.2 += mb * s2
            used += 1
        }
        let normal = [[powers.0, powers.1, powers.2], [powers.1, powers.2, powers.3], [powers.2, powers.3, powers.4]]
        guard 4 * used >= matched.count, let solution = solve(normal, [right.0, right.1, right.2]), solution[0] > 0 else { return nil }
        return ((Float(solution[1] / solution[0]), Float(solution[2] / solution[0])), mismatch / Float(matched.count))
    }

    /// `plane` (`side`² gray levels over the whole frame) with the gain divided out: lit as the
    /// first of the fitted pair, up to the gain at its centre.
    public static func corrected(_ plane: [UInt8], side: Int, by profile: Profile) -> [UInt8] {
        plane.indices.map { index in
            UInt8(max(0, min(255, (Float(plane[index]) / profile.gain(squaredRadius(index, side: side))).rounded())))
        }
    }

    /// A chroma plane's (`side`² levels about 128) colour with the gain divided out: a gain on
    /// red, green and blue alike scales Cb and Cr about their neutral level by the same factor.
    public static func correctedChroma(_ plane: ArraySlice<UInt8>, side: Int, by profile: Profile) -> [UInt8] {
        plane.indices.map { index in
            let offset = Float(plane[index]) - 128, gain = profile.gain(squaredRadius(index - plane.startIndex, side: side))
            return UInt8(max(0, min(255, (128 + offset / gain).rounded())))
        }
    }

    /// The squared distance of cell `index` of a `side`² plane from the frame's centre, 1 in the
    /// corners.
    @inline(__always)
    public static func squaredRadius(_ index: Int, side: Int) -> Float {
        let x = (Float(index % side) + 0.5) / Float(side) - 0.5, y = (Float(index / side) + 0.5) / Float(side) - 0.5
        return 2 * (x * x + y * y)
    }

    /// The solution of a 3×3 linear system by elimination with partial pivoting; nil when singular.
    static func solve(_ matrix: [[Double]], _ right: [Double]) -> [Double]? {
        var rows = zip(matrix, right).map { $0 + [$1] }
        for column in 0..<3 {
            guard let pivot = (column..<3).max(by: { abs(rows[$0][column]) < abs(rows[$1][column]) }),
                  abs(rows[pivot][column]) > 1e-9 * max(1, abs(rows[0][0])) else { return nil }
            rows.swapAt(column, pivot)
            for row in 0..<3 where row != column {
                let factor = rows[row][column] / rows[column][column]
                for entry in column...3 { rows[row][entry] -= factor * rows[column][entry] }
            }
        }
        return (0..<3).map { rows[$0][3] / rows[$0][$0] }
    }
}
