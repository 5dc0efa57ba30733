/// A band laid across the whole width of a copy: a proof's translucent "SAMPLE" strip, a caption
/// bar, a watermark banner. It covers the middle of the frame as often as an end, where no
/// `FeatureWindow` leaves it out, and it reads as a region lit differently (`RegionalGain`,
/// `LocalChange`): the copy was called a similar shot of its photo. So a pair of whole frames is
/// asked whether one carries such a band over the other, and the band's rows, once found, are
/// given back the photo's levels before the pair is judged again (`PairJudge+OverlayBand`).
/// docs/FEATURES.md, "Overlay bands", has the numbers.
///
/// What tells an overlay from a change of the scene is how the copy's levels follow the photo's.
/// Outside the band they follow one tone curve, close to a straight line (`outsideMisfit`).
/// Inside it they follow another straight line, `copy ≈ gain·photo + offset`, with a gain below
/// the outside's. A translucent layer of colour `c` at opacity `α` gives `(1 − α)·photo + α·c`,
/// and an opaque one gives a constant. Its text is a few cells that follow no line
/// (`bandAgreement`). A burst's change in a band (a car, a wave, a passer-by) follows no line
/// at all. A band lit brighter or darker by the light follows a gain with no offset, and that
/// gain is only below the outside's when the band is darker. Such a band is then found as an
/// overlay too, and the judge decides on the rest of the frame.
public enum OverlayBand {
    /// A band found: the rows of a `side`² plane it covers, including the partly covered row at
    /// each edge, and the line the copy's levels follow outside it.
    public struct Band: Sendable, Equatable {
        public var rows: Range<Int>
        public var side: Int
        public var gain: Float
        public var offset: Float

        /// The band's rows on a plane of another side (a detail layout's 64, a chroma plane's
        /// 16): every row the band touches.
        public func rows(onSide other: Int) -> Range<Int> {
            let top = rows.lowerBound * other / side
            let bottom = (rows.upperBound * other + side - 1) / side
            return top..<min(other, bottom)
        }
    }

    /// The most rows of a 32-row thumbnail a band's core may span (the rows it covers whole):
    /// 7, 22% of the height. A proof's banner covers 16% (5–6 rows, one partly covered row at
    /// each edge more). The more a band hides, the less is left to tell two shots apart by.
    public static let mostCoreRows = 7
    /// Rows left outside the band, at the least: the judge needs most of the frame to decide on.
    static let leastOutsideRows = 20
    /// The most root-mean-square misfit (gray levels) of the copy's levels outside the band to
    /// their line through the photo's. The unseen-edits set's banner copies (JPEGs saved again)
    /// fit to 0.08–0.39. The pairs of the hard set's different photos that pass every other test
    /// fit to 5.7 and 6.0 (two distractors; a pan burst frame and a captioned copy).
    public static let outsideMisfit: Float = 4
    /// The most of the photo's structure (`rowStructure`) the band's rows may hold: the rest of
    /// the frame must show most of what the picture is, or clearing the band hides it. The
    /// banners' rows hold 0.27 of their photos' structure in the median, 0.57 at the most but
    /// for a wallpaper whose one stripe runs under the banner (0.73). Rows of the
    /// million realistic rows' graphics on a plain ground, their content in a strip across
    /// the middle toned by another curve in a burst shot, passed every test below at 0.89.
    public static let mostBandStructure = 0.6
    /// The least spread (standard deviation, levels) of the photo's levels outside the band:
    /// below it, the line through them says nothing.
    static let leastOutsideSpread: Float = 2
    /// The share of the band's core cells that must lie within `bandTolerance` of the band's own
    /// line (`bandLine`): the rest is its text. On the unseen-edits set's banner copies (small
    /// text) 0.80–1.00 on a plain least-squares line; bold lettering over a third of a band's
    /// width and height leaves about 0.8 of its cells (`OverlayBandGroupingTests`).
    public static let bandAgreement: Float = 0.7
    static let bandTolerance: Float = 10
    /// The least mean difference (levels) between the band's line and the outside's, over the
    /// band's core: less is no overlay worth finding. The banners moved theirs by 12–111.
    public static let leastShift: Float = 12
    /// The band's gain over the outside's, at most: an overlay lowers contrast and cannot add any.
    static let mostRelativeGain: Float = 0.9
    /// The colour (gray level) a layer over the band must have (`layerColour`): a colour there
    /// is, give or take the fits' error. The unseen-edits set's banners (a black layer) come out
    /// at −31 to 30, but for one at −259 (the smooth Silk wallpaper, near all the same).
    /// On a million realistic rows it turned 5 of the 62 pairs the band made near back.
    static let overlayColours: ClosedRange<Float> = -40...295
    /// The outside's gain must lie in this range: a copy toned far past that is another matter.
    static let outsideGains: ClosedRange<Float> = 0.6...1.6

    /// Sums of one row's levels, in Double: count, Σa, Σb, Σa², Σab, Σb².
    struct Sums {
        var n = 0.0, a = 0.0, b = 0.0, aa = 0.0, ab = 0.0, bb = 0.0

        mutating func add(_ a: Double, _ b: Double) {
            n += 1; self.a += a; self.b += b; aa += a * a; ab += a * b; bb += b * b
        }

        static func + (l: Sums, r: Sums) -> Sums {
            Sums(n: l.n + r.n, a: l.a + r.a, b: l.b + r.b, aa: l.aa + r.aa, ab: l.ab + r.ab, bb: l.bb + r.bb)
        }

        static func - (l: Sums, r: Sums) -> Sums {
            Sums(n: l.n - r.n, a: l.a - r.a, b: l.b - r.b, aa: l.aa - r.aa, ab: l.ab - r.ab, bb: l.bb - r.bb)
        }

        /// The least-squares line `b ≈ gain·a + offset` and its root-mean-square misfit; nil when
        /// `a` barely varies (spread under `leastSpread`).
        func line(leastSpread: Double) -> (gain: Double, offset: Double, misfit: Double)? {
            guard n > 0 else { return nil }
            let sxx = aa - a * a / n, sxy = ab - a * b / n, syy = bb - b * b / n
            guard sxx / n >= leastSpread * leastSpread else { return nil }
            let gain = sxy / sxx
            return (gain, (b - gain * a) / n, (max(0, syy - gain * sxy) / n).squareRoot())
        }
    }

    /// The band `copy` carries over `photo`, two `side`² gray planes of one whole frame, if it
    /// carries one: of the bands that pass every test above, the one whose line moves the most
    /// levels in all (its shift times its rows).
    public static func find(photo: [UInt8], copy: [UInt8], side: Int) -> Band? {
        precondition(photo.count == side * side && copy.count == side * side, "two \(side)² planes")
        var prefix = [Sums](repeating: Sums(), count: side + 1)
        for row in 0..<side {
            var sums = Sums()
            for index in (row * side)..<((row + 1) * side) {
                sums.add(Double(photo[index]), Double(copy[index]))
            }
            prefix[row + 1] = prefix[row] + sums
        }
        let structure = rowStructure(photo, side: side)
        let scale = Double(side) / 32
        let mostCore = max(1, Int((Double(mostCoreRows) * scale).rounded()))
        let leastOutside = Int((Double(leastOutsideRows) * scale).rounded())
        var best: (band: Band, moved: Float)?
        for top in 0..<side {
            for bottom in (top + 1)...min(side, top + mostCore) {
                // The core, and one partly covered row each side, neither in any fit.
                let covered = max(0, top - 1)..<min(side, bottom + 1)
                guard side - covered.count >= leastOutside,
                      structure[covered.upperBound] - structure[covered.lowerBound] <= mostBandStructure * structure[side] else { continue }
                let outsideSums = prefix[side] - (prefix[covered.upperBound] - prefix[covered.lowerBound])
                guard let outside = outsideSums.line(leastSpread: Double(leastOutsideSpread)),
                      outside.misfit <= Double(outsideMisfit), outsideGains.contains(Float(outside.gain)) else { continue }
                let band = bandLine(photo: photo, copy: copy, side: side, core: top..<bottom, sums: prefix[bottom] - prefix[top])
                guard band.gain <= Double(mostRelativeGain) * outside.gain, band.gain >= -0.05,
                      overlayColours.contains(Float(layerColour(band: (band.gain, band.offset), outside: (outside.gain, outside.offset)))) else { continue }
                var shift: Float = 0
                for index in (top * side)..<(bottom * side) {
                    let a = Float(photo[index])
                    shift += abs(Float(band.gain - outside.gain) * a + Float(band.offset - outside.offset))
                }
                let cells = Float((bottom - top) * side)
                shift /= cells
                guard shift >= leastShift, Float(band.agreeing) >= bandAgreement * cells,
                      let curveShift = shiftAgainstCurve(photo: photo, copy: copy, side: side, core: top..<bottom, covered: covered),
                      curveShift >= leastShift else { continue }
                let moved = shift * Float(bottom - top)
                if best == nil || moved > best!.moved {
                    best = (Band(rows: covered, side: side, gain: Float(outside.gain), offset: Float(outside.offset)), moved)
                }
            }
        }
        return best?.band
    }

    /// Running sums, row by row, of the photo's structure: the absolute differences between
    /// neighbouring levels along each row, and half those between each row and the next
    /// (given to both). Entry `r` sums the rows before `r`.
    static func rowStructure(_ photo: [UInt8], side: Int) -> [Double] {
        var rowEnergy = [Double](repeating: 0, count: side)
        for row in 0..<side {
            let start = row * side
            for x in 1..<side { rowEnergy[row] += Double(abs(Int(photo[start + x]) - Int(photo[start + x - 1]))) }
            guard row + 1 < side else { continue }
            var across = 0.0
            for x in 0..<side { across += Double(abs(Int(photo[start + side + x]) - Int(photo[start + x]))) }
            rowEnergy[row] += across / 2
            rowEnergy[row + 1] += across / 2
        }
        var running = [Double](repeating: 0, count: side + 1)
        for row in 0..<side { running[row + 1] = running[row] + rowEnergy[row] }
        return running
    }

    /// The line the band's core rows follow, and how many of their cells lie within
    /// `bandTolerance` of it. Fitted by least squares (`sums`), then twice again on the cells
    /// near the last fit only (within 3 and 2 times the tolerance): a band's text, letters far
    /// brighter or darker than the layer, pulls a least-squares line towards it. A band flat in
    /// the photo is lit by a constant: gain 0, its mean the offset.
    static func bandLine(photo: [UInt8], copy: [UInt8], side: Int, core: Range<Int>, sums: Sums)
        -> (gain: Double, offset: Double, agreeing: Int) {
        func fitted(_ sums: Sums) -> (gain: Double, offset: Double) {
            sums.line(leastSpread: 1).map { ($0.gain, $0.offset) } ?? (0, sums.b / max(1, sums.n))
        }
        let cells = (core.lowerBound * side)..<(core.upperBound * side)
        var line = fitted(sums)
        // Within 3, then 2 times the tolerance (a stride, not an array: no allocation a candidate).
        for tolerance in stride(from: 3 * bandTolerance, through: 2 * bandTolerance, by: -bandTolerance) {
            var near = Sums()
            for index in cells {
                let a = Double(photo[index]), b = Double(copy[index])
                guard abs(b - (line.gain * a + line.offset)) <= Double(tolerance) else { continue }
                near.add(a, b)
            }
            guard near.n >= 2 else { break }
            line = fitted(near)
        }
        var agreeing = 0
        for index in cells where abs(Double(copy[index]) - (line.gain * Double(photo[index]) + line.offset)) <= Double(bandTolerance) {
            agreeing += 1
        }
        return (line.gain, line.offset, agreeing)
    }

    /// The gray level of the layer that turns the outside's line into the band's: the copy
    /// without it is `g·photo + o` (the outside's line) everywhere, and a layer of level `c` at
    /// opacity `α` makes that `(1 − α)·(g·photo + o) + α·c` in the band, so that the band's gain
    /// is `(1 − α)·g` and its offset `(1 − α)·o + α·c`.
    static func layerColour(band: (gain: Double, offset: Double), outside: (gain: Double, offset: Double)) -> Double {
        let kept = band.gain / outside.gain, opacity = 1 - kept
        return (band.offset - kept * outside.offset) / opacity
    }

    /// Gray levels a bin of the photo's levels spans, for `shiftAgainstCurve`.
    static let curveBinWidth = 16
    /// Cells outside the band a bin needs for its mean to be compared.
    static let leastCurveCells = 3

    /// How far, on average over the core's cells, the copy's mean level in the band lies from
    /// its mean level outside the band for the same levels of the photo (bins of
    /// `curveBinWidth`); nil when under half the core's cells fall in bins the outside fills.
    /// A tone curve acts on levels, not rows: a copy toned by a curve that bends (or another
    /// shot lit through one) can follow one line outside the band and another inside it when
    /// the band holds other levels, but for the same levels it follows the same curve, and
    /// this is then small. An overlay acts on rows: the same levels come out other in the band.
    static func shiftAgainstCurve(photo: [UInt8], copy: [UInt8], side: Int, core: Range<Int>, covered: Range<Int>) -> Float? {
        let bins = 256 / curveBinWidth
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 4 * bins) { sums in
            sums.initialize(repeating: 0)
            // Outside: the copy's sum and the count in each bin; then the band's.
            for row in 0..<side where !covered.contains(row) {
                for index in (row * side)..<((row + 1) * side) {
                    let bin = Int(photo[index]) / curveBinWidth
                    sums[bin] += Float(copy[index])
                    sums[bins + bin] += 1
                }
            }
            for index in (core.lowerBound * side)..<(core.upperBound * side) {
                let bin = Int(photo[index]) / curveBinWidth
                sums[2 * bins + bin] += Float(copy[index])
                sums[3 * bins + bin] += 1
            }
            var shift: Float = 0, used: Float = 0
            for bin in 0..<bins where sums[bins + bin] >= Float(leastCurveCells) && sums[3 * bins + bin] > 0 {
                let inBand = sums[3 * bins + bin]
                shift += abs(sums[2 * bins + bin] / inBand - sums[bin] / sums[bins + bin]) * inBand
                used += inBand
            }
            guard 2 * used >= Float(core.count * side) else { return nil }
            return shift / used
        }
    }

    /// `copy`'s `planeSide`² gray plane with the band's rows given the photo's levels, on the
    /// copy's tone (the line outside the band): what the copy would show without the band.
    public static func cleared(_ copy: [UInt8], photo: [UInt8], planeSide: Int, band: Band) -> [UInt8] {
        precondition(copy.count == planeSide * planeSide && photo.count == copy.count, "two \(planeSide)² planes")
        var out = copy
        for row in band.rows(onSide: planeSide) {
            for index in (row * planeSide)..<((row + 1) * planeSide) {
                out[index] = UInt8(max(0, min(255, (band.gain * Float(photo[index]) + band.offset).rounded())))
            }
        }
        return out
    }

    /// `copy`'s `planeSide`² chroma plane with the band's rows the photo's: an overlay of a
    /// neutral colour draws the copy's colours towards neutral, and the band's colours say
    /// nothing of the rest.
    public static func clearedChroma(_ copy: ArraySlice<UInt8>, photo: ArraySlice<UInt8>, planeSide: Int, band: Band) -> [UInt8] {
        precondition(copy.count == planeSide * planeSide && photo.count == copy.count, "two \(planeSide)² planes")
        var out = Array(copy)
        let photoStart = photo.startIndex
        for row in band.rows(onSide: planeSide) {
            for index in (row * planeSide)..<((row + 1) * planeSide) { out[index] = photo[photoStart + index] }
        }
        return out
    }
}
