import Foundation

/// Where two views of one picture agree in brightness, one colour edit carries the first's
/// colours onto the second's. A colour grade, a white balance, a saturation change, toning or
/// black and white are each one map z ↦ w·z + t of chroma (z = Cb + i·Cr, w and t complex: a
/// scale, a hue turn and a shift). Two different pictures whose gray layouts happen to agree,
/// a red ellipse on green where the other has plain green of the same brightness, follow no
/// single map: where their brightness agrees, some of their cells' colours depart from any map
/// fitted to the rest. docs/FEATURES.md, "Colours that follow no edit", has the numbers.
///
/// Compared on `ColourMask`'s grid (12×12 cells of luma and chroma). Overlays, captions and
/// other local edits change brightness, so the cells they cover are left out; a crop's or a
/// rotation's misfit of up to a cell is forgiven by comparing each cell with the other view's
/// 3×3 neighbourhood, both ways.
public enum ColourMap {
    /// Gray levels within which a cell's luma, carried through the tone curve onto the other view's, agrees.
    public static let lumaAgreement: Float = 12
    /// Chroma units a cell's mapped colour must lie from every neighbouring colour of the other
    /// view (and the other view's from every neighbouring mapped colour) to depart.
    public static let departure: Float = 20
    /// Departing cells that make two pictures' colours disagree: 3 of 144 (2% of the frame).
    public static let departingCellsThatDisagree = 3
    /// Chroma units of residual at which a cell stops counting in the map's fit: twice
    /// `departure`, so that cells a first fit misses by a departure's worth still pull it back.
    static let robustScale: Float = 40
    /// Reweighted fits after the first: a patch of a tenth of the cells 90 units off pulls the
    /// first fit by about 9 units, the second by under 1.
    static let robustIterations = 3
    /// Cells of agreeing luma needed to fit a map at all.
    static let cellsToFit = 10

    /// Whether the colours of `a` and `b` (one window each, `side`² cells row by row) follow
    /// no single colour edit where their brightness agrees. Asked from the more colourful of
    /// the two (the larger spread of chroma over all cells) to the other: an edit can take
    /// colour away (black and white, sepia, a paler copy) but not make it, so no map gives an
    /// original's colours back from its black-and-white copy, while the map onto the copy
    /// exists. For an edit that keeps colour either way holds (a map and its inverse).
    ///
    /// Nor does a map that turns hues past `largestHueTurn` while keeping colour (rules 14): a
    /// picture in other colours is a colour variant, not an edit, even where one map carries
    /// a few plain colours onto the other's exactly (two colours always fit one).
    public static func disagree(_ a: [ColourMask.Cell], _ b: [ColourMask.Cell], side: Int = ColourMask.side) -> Bool {
        if coloursAgreeInPlace(a, b) { return false }
        let (from, to) = chromaSpread(a) >= chromaSpread(b) ? (a, b) : (b, a)
        guard let fit = fitted(from, to, side: side) else { return false }
        if fit.map.turnsHue { return true }
        return departingCells(from, to, fit, side: side) >= departingCellsThatDisagree
    }

    /// Chroma units within which every cell's colour lies from the other view's cell in its
    /// place when the views' colours agree as they are (`coloursAgreeInPlace`): half of
    /// `departure`.
    static let agreementInPlace: Float = departure / 2

    /// Whether every cell's colour (Cb, Cr) lies within `agreementInPlace` of the other view's
    /// cell in its place. Then one colour edit follows them, the identity: it turns no hue and
    /// carries no cell a `departure` from the other view, so `disagree` need not fit a map.
    /// Re-encodes, resizes, crops and tone edits keep colours so; at a million realistic rows
    /// 130,000 of the 158,000 pairs asked were, none of them disagreeing when fitted, and the
    /// fits that disagreed (543) all had a cell over 14 units from its place.
    static func coloursAgreeInPlace(_ a: [ColourMask.Cell], _ b: [ColourMask.Cell]) -> Bool {
        guard a.count == b.count else { return false }
        let limit = agreementInPlace * agreementInPlace
        for index in a.indices {
            let cb = a[index].cb - b[index].cb, cr = a[index].cr - b[index].cr
            if cb * cb + cr * cr > limit { return false }
        }
        return true
    }

    /// The largest hue turn (degrees) of one colour edit's map: hue edits of 20° fit turns of
    /// 19–29° on the generated graphics (`bench/plain-edits.sh`), the corpora's edited photos
    /// at most 17° (a warm grade), while 115 of the library's 345 wrong near pairs of rules 13
    /// need more (docs/FEATURES.md, "Colours that follow no edit").
    public static let largestHueTurn: Float = 30
    /// A map that scales chroma by less than this takes most colour away (black and white,
    /// sepia, toning): the turn of what is left says nothing.
    static let scaleWithHue: Float = 0.3
    /// Chroma units (standard deviation over the fitted cells) the colours mapped from must
    /// spread for a turn to be measured: a nearly gray picture's chroma is its noise.
    static let spreadWithHue: Float = 8

    /// The variance of the cells' chroma, Cb and Cr together.
    static func chromaSpread(_ cells: [ColourMask.Cell]) -> Float {
        let count = Float(max(1, cells.count))
        let meanCb = cells.reduce(0) { $0 + $1.cb } / count, meanCr = cells.reduce(0) { $0 + $1.cr } / count
        return cells.reduce(0) { $0 + ($1.cb - meanCb) * ($1.cb - meanCb) + ($1.cr - meanCr) * ($1.cr - meanCr) } / count
    }

    /// The cells of agreeing brightness whose colours no map of `a`'s onto `b`'s, fitted to
    /// them, explains.
    public static func departingCells(_ a: [ColourMask.Cell], _ b: [ColourMask.Cell], side: Int = ColourMask.side) -> Int {
        guard let fit = fitted(a, b, side: side) else { return 0 }
        return departingCells(a, b, fit, side: side)
    }

    /// The cells of agreeing brightness and the map of `a`'s colours onto `b`'s fitted to
    /// them; nil when the grids are not `side`² or fewer than `cellsToFit` cells agree.
    static func fitted(_ a: [ColourMask.Cell], _ b: [ColourMask.Cell], side: Int) -> (agreeing: [Int], map: Map)? {
        guard a.count == side * side, b.count == side * side else { return nil }
        let agreeing = agreeingCells(a.map(\.luma), b.map(\.luma))
        guard agreeing.count >= cellsToFit else { return nil }
        let pairs = agreeing.map { (Complex(a[$0].cb, a[$0].cr), Complex(b[$0].cb, b[$0].cr)) }
        var map = Map.fitted(pairs, weights: [Float](repeating: 1, count: pairs.count))
        // Reweighted (Tukey's biweight, zero from `robustScale` on): the departing cells pull a
        // plain least-squares fit away from the others. Not refitted to a share of the best
        // fitting: a ground with one small shape would lose the shape and with it every colour
        // but the ground's, and then the shape would depart.
        for _ in 0..<robustIterations {
            let weights = pairs.map { pair in
                let r = map.residual(pair.0, pair.1) / robustScale
                return r < 1 ? (1 - r * r) * (1 - r * r) : 0
            }
            guard weights.reduce(0, +) > 0 else { break }
            map = Map.fitted(pairs, weights: weights)
        }
        return (agreeing, map)
    }

    static func departingCells(_ a: [ColourMask.Cell], _ b: [ColourMask.Cell], _ fit: (agreeing: [Int], map: Map), side: Int) -> Int {
        let agreeing = fit.agreeing, map = fit.map
        let za = a.map { Complex($0.cb, $0.cr) }, zb = b.map { Complex($0.cb, $0.cr) }
        let mapped = za.map(map.apply)
        return agreeing.reduce(0) { count, index in
            var departs = true
            forEachNeighbour(of: index, side: side) { neighbour in
                // Squared distances: the same test without a square root per neighbour.
                let fromA = (mapped[index] - zb[neighbour]).squaredMagnitude, fromB = (zb[index] - mapped[neighbour]).squaredMagnitude
                if fromA <= departure * departure || fromB <= departure * departure { departs = false }
            }
            return count + (departs ? 1 : 0)
        }
    }

    /// The cells whose brightness agrees: each view's tone curve (`toneCurve`) carries the
    /// cell's luma to within `lumaAgreement` of the other's, both ways, and the straight line
    /// fitted to those cells to within `toneLineAgreement`. Both ways, because a caption
    /// band's white cells sit where the other view has ground, and the ground's curve carries
    /// some of them back onto the ground. The line, because a band that covers most of one
    /// level (a dark caption over a shape) moves that level's median and the curve with it:
    /// a curve that drops one level by 60 while its neighbour 10 levels up stays is no tone
    /// edit.
    static func agreeingCells(_ lumaA: [Float], _ lumaB: [Float]) -> [Int] {
        let fromA = toneCurve(lumaA, onto: lumaB), fromB = toneCurve(lumaB, onto: lumaA)
        let onCurves = lumaA.indices.filter { abs(fromA[$0] - lumaB[$0]) < lumaAgreement && abs(fromB[$0] - lumaA[$0]) < lumaAgreement }
        // Both lines, so that the cells agreeing are the same whichever view comes first: one
        // line alone lets a few cells far out in its own x pull it to them.
        let lineA = ToneLine.fitted(onCurves.map { (lumaA[$0], lumaB[$0]) }), lineB = ToneLine.fitted(onCurves.map { (lumaB[$0], lumaA[$0]) })
        return onCurves.filter {
            abs(lineA.apply(lumaA[$0]) - lumaB[$0]) < toneLineAgreement && abs(lineB.apply(lumaB[$0]) - lumaA[$0]) < toneLineAgreement
        }
    }

    /// Gray levels within which a cell's luma must lie from the straight line fitted to the
    /// cells on the tone curves: gamma 0.5 to 2 over the full range departs from its best
    /// line by at most 32 levels, and brightness and contrast edits by nothing.
    static let toneLineAgreement: Float = 40

    /// y = slope·x + offset, by least squares; the mean of y when x hardly varies.
    struct ToneLine {
        var slope: Float
        var offset: Float

        func apply(_ x: Float) -> Float { slope * x + offset }

        static func fitted(_ pairs: [(Float, Float)]) -> ToneLine {
            let count = Float(max(1, pairs.count))
            let meanX = pairs.reduce(0) { $0 + $1.0 } / count, meanY = pairs.reduce(0) { $0 + $1.1 } / count
            var covariance: Float = 0, variance: Float = 0
            for (x, y) in pairs {
                covariance += (x - meanX) * (y - meanY)
                variance += (x - meanX) * (x - meanX)
            }
            guard variance / count >= 1 else { return ToneLine(slope: 0, offset: meanY) }
            let slope = covariance / variance
            return ToneLine(slope: slope, offset: meanY - slope * meanX)
        }
    }

    /// `values` each carried through the tone curve of `values` onto `target`: the
    /// non-decreasing curve nearest `target` in absolute difference (isotonic regression
    /// under L1: cells of one level start as one block at their counterparts' median, and
    /// pooling adjacent blocks out of order takes the median of their union). Medians rather
    /// than a match of ranks: a caption or a patch that changes the brightness of a few cells
    /// moves every rank above it, and plain graphics, a few levels over many cells each, then
    /// pair one level with another; the median of one level's counterparts is its own however
    /// much of the rest changed.
    static func toneCurve(_ values: [Float], onto target: [Float]) -> [Float] {
        let order = ascendingOrder(values)
        // Blocks are runs of `order`; `counterparts` holds the cells' values in `target` in
        // that order, each block's run kept sorted, so pooling two blocks merges two runs.
        var counterparts = order.map { target[$0] }
        var blocks: [(start: Int, end: Int, level: Float)] = []
        var scratch: [Float] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && values[order[end]] == values[order[start]] { end += 1 }
            counterparts[start..<end].sort()
            var block = (start: start, end: end, level: median(counterparts, start, end))
            while let last = blocks.last, last.level > block.level {
                mergeRuns(&counterparts, last.start, last.end, block.end, scratch: &scratch)
                block = (last.start, block.end, median(counterparts, last.start, block.end))
                blocks.removeLast()
            }
            blocks.append(block)
            start = end
        }
        var out = [Float](repeating: 0, count: values.count)
        for block in blocks { for position in block.start..<block.end { out[order[position]] = block.level } }
        return out
    }

    /// The indexes of `values` in ascending order of value. Gray levels (never negative) are
    /// sorted as packed keys (`SortKeys`, as `LayoutThumbnail.rank` does), without a closure:
    /// the judge asks this four times of every pair of colour windows it compares. Equal values
    /// keep index order; `toneCurve` treats a run of them as one block either way.
    static func ascendingOrder(_ values: [Float]) -> [Int] {
        guard values.count < 1 << 32, values.allSatisfy({ $0 >= 0 }) else {
            return values.indices.sorted { values[$0] < values[$1] }  // not gray levels (or NaN)
        }
        // (-0 sorts as +0: its sign bit would put it last.)
        var keys = values.enumerated().map { UInt64(($0.element > 0 ? $0.element : 0).bitPattern) << 32 | UInt64($0.offset) }
        SortKeys.sortByUpperHalf(&keys)
        return keys.map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
    }

    /// Merges the sorted runs `values[start..<middle]` and `values[middle..<end]` in place.
    static func mergeRuns(_ values: inout [Float], _ start: Int, _ middle: Int, _ end: Int, scratch: inout [Float]) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: values[start..<middle])
        var i = 0, j = middle, k = start
        while i < scratch.count && j < end {
            if scratch[i] <= values[j] { values[k] = scratch[i]; i += 1 } else { values[k] = values[j]; j += 1 }
            k += 1
        }
        while i < scratch.count { values[k] = scratch[i]; i += 1; k += 1 }
    }

    /// The median of the sorted run `values[start..<end]`.
    static func median(_ values: [Float], _ start: Int, _ end: Int) -> Float {
        let count = end - start, middle = start + count / 2
        return count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    /// `body` on the cell and each of its neighbours (3×3, clipped at the edges).
    static func forEachNeighbour(of index: Int, side: Int, _ body: (Int) -> Void) {
        let y = index / side, x = index % side
        for ny in max(0, y - 1)...min(side - 1, y + 1) {
            for nx in max(0, x - 1)...min(side - 1, x + 1) { body(ny * side + nx) }
        }
    }

    /// A chroma value as a complex number: Cb the real part, Cr the imaginary.
    struct Complex: Equatable {
        var re: Float
        var im: Float

        init(_ re: Float, _ im: Float) {
            self.re = re
            self.im = im
        }

        var magnitude: Float { squaredMagnitude.squareRoot() }
        var squaredMagnitude: Float { re * re + im * im }
        static func + (x: Self, y: Self) -> Self { Self(x.re + y.re, x.im + y.im) }
        static func - (x: Self, y: Self) -> Self { Self(x.re - y.re, x.im - y.im) }
        static func * (x: Self, y: Self) -> Self { Self(x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re) }
        var conjugate: Self { Self(re, -im) }
    }

    /// z ↦ w·z + t, fitted by least squares.
    struct Map {
        var w: Complex
        var t: Complex
        /// The standard deviation of the colours the map was fitted from (chroma units).
        var spread: Float = 0

        /// Whether the map keeps colour (`scaleWithHue`), from colours that spread
        /// (`spreadWithHue`), and turns hues past `largestHueTurn`.
        var turnsHue: Bool {
            guard w.magnitude >= scaleWithHue, spread >= spreadWithHue else { return false }
            // |turn| > limit ⇔ the real part falls below |w|·cos(limit).
            return w.re < w.magnitude * Self.cosineOfLargestTurn
        }
        static let cosineOfLargestTurn = Float(cos(Double(largestHueTurn) * .pi / 180))

        func apply(_ z: Complex) -> Complex { w * z + t }
        func residual(_ z: Complex, _ target: Complex) -> Float { (apply(z) - target).magnitude }

        /// The weighted least-squares map of the pairs' first colours onto their second (the
        /// weights sum to more than 0). When the first
        /// colours hardly vary (a gray picture) no scale can be told: the map is the constant
        /// mean of the second, so a gray picture's copy must be of one tone (toned, sepia).
        static func fitted(_ pairs: [(Complex, Complex)], weights: [Float]) -> Map {
            let total = weights.reduce(0, +)
            var meanA = Complex(0, 0), meanB = Complex(0, 0)
            for ((a, b), weight) in zip(pairs, weights) {
                meanA = meanA + Complex(a.re * weight, a.im * weight)
                meanB = meanB + Complex(b.re * weight, b.im * weight)
            }
            meanA = Complex(meanA.re / total, meanA.im / total)
            meanB = Complex(meanB.re / total, meanB.im / total)
            var covariance = Complex(0, 0), variance: Float = 0
            for ((a, b), weight) in zip(pairs, weights) {
                let da = a - meanA, db = b - meanB
                let product = da.conjugate * db
                covariance = covariance + Complex(product.re * weight, product.im * weight)
                variance += weight * (da.re * da.re + da.im * da.im)
            }
            let spread = (variance / total).squareRoot()
            guard variance / total >= 1 else { return Map(w: Complex(0, 0), t: meanB, spread: spread) }
            let w = Complex(covariance.re / variance, covariance.im / variance)
            return Map(w: w, t: meanB - w * meanA, spread: spread)
        }
    }
}
