/// Whether two aligned plain graphics are one picture's colours under one global colour edit:
/// the check that tells apart two graphics of a few flat shapes whose shapes landed in the
/// same places, where gray layouts, hues and colour orders all agree (docs/FEATURES.md,
/// "Plain graphics recoloured").
///
/// A colour edit treats every pixel alike. In chroma (Cb + i·Cr as one complex number) the
/// common ones are close to z ↦ w·z + t: brightness, contrast and saturation scale chroma
/// (w real), a hue shift turns it (w's angle), a white balance or a grade moves it (t), and
/// per-channel gains do both, a little unevenly. So, anchored at the plain backgrounds:
///
/// - the shapes' chroma relative to their background must follow one `w`, fitted by least
///   squares and limited to what edits do (`Limits`: scale and turn), each shape cell within
///   `baseTolerance` plus a share of its own distance from the background;
/// - the background must then move by a shift t = background_b − w·background_a no larger than
///   the limits' `shiftLimit`.
///
/// Two limits: one edit (`Limits.oneEdit`: within it, one picture) and two (`Limits.twoEdits`:
/// past it, other pictures). Two edited copies of one graphic are up to two edits apart, and
/// are not told apart as other pictures.
///
/// Two different graphics were coloured independently: their shapes do not follow one map,
/// or the map that fits the shapes cannot also carry one background to the other.
///
/// Where one window's colours are all of one hue (`monochrome`) and the other's are not, no
/// map can be fitted; only the backgrounds are compared (`Limits.backgroundMoveLimit`). A
/// window with fewer than `minimumCells` coloured cells (a black-and-white copy) has nothing to
/// compare.
///
/// The limits are a trade measured on two sets (bench/RESULTS.md, "Shape colours"): 2,379
/// colour edits of generated plain graphics (bench/plain-edits.py) that reach this check, and
/// 1,017 confirmed-wrong near pairs of the end-to-end library. Wider limits (scale 0.5…2, 30°,
/// shift 60) keep all but 89 edits and catch 591 wrong pairs; `Limits.oneEdit` keeps all but
/// 250 and catches 911.
public enum ShapeColours {
    /// Chroma units (|ΔCb| + |ΔCr|) a shape cell may lie off the map: JPEG's chroma error and the
    /// mixed cells on a shape's edge after a resize (the end-to-end library's resized copies: of
    /// 1,493 plain pairs, one has 3 or more cells past it).
    public static let baseTolerance: Float = 16
    /// How far one colour edit's map may go: the shapes' chroma scaled within `scaleRange` and
    /// turned by at most `turnLimit` degrees, each shape cell within `baseTolerance` plus
    /// `relativeTolerance` of its own chroma distance from the background (per-channel gains
    /// such as red ×1.1, blue ×0.85 scale the two chroma axes unevenly), the background moved
    /// by at most `shiftLimit` chroma units.
    public struct Limits: Sendable, Equatable {
        public var scaleRange: ClosedRange<Float>
        public var turnLimit: Float
        public var relativeTolerance: Float
        public var shiftLimit: Float
        /// How far (chroma units) a coloured background may move when one window is monochrome.
        public var backgroundMoveLimit: Float

        /// One colour edit: saturation −33% to +50%, hue turned 20°, a mild white balance or grade
        /// (red ×1.1, blue ×0.85 on the generated graphics shifts the ground by up to 35, past
        /// 30 on 7 of 150 warm copies); strong ones (red ×1.25, blue ×0.75: up to 63) are given up.
        /// A monochrome copy's coloured ground may move 15: five times `ChromaLayout.flatTolerance`,
        /// past what re-encoding and resizing move a flat colour (the end-to-end library's 2,000
        /// true pairs: all within 6).
        public static let oneEdit = Limits(scaleRange: 0.67...1.5, turnLimit: 20, relativeTolerance: 0.2, shiftLimit: 30,
                                           backgroundMoveLimit: 15)
        /// Two such edits, one on each copy: what two edited copies of one graphic can be to
        /// each other (a −40% and a +60% saturation, both kept within one edit, are 2.7× apart;
        /// two 20° turns 40°). Past these, the two are other pictures (distinct); between the two
        /// limits, not confirmed either way.
        public static let twoEdits = Limits(scaleRange: 0.4...2.5, turnLimit: 40, relativeTolerance: 0.3, shiftLimit: 60,
                                            backgroundMoveLimit: 30)
    }

    /// Cells off the map before the shapes count as other colours; fewer shape cells than this
    /// coloured off their background in either window, and the shapes say nothing (the
    /// background alone sets w). Also the fewest coloured cells a window needs to be compared.
    public static let minimumCells = 3
    /// The share of the shapes' cells (off the background in both windows) that must be off the
    /// map: an overlay on a shape (a logo, a caption) stays under it on any but the plainest
    /// graphic.
    public static let misfitShare: Float = 0.25
    /// A window all of whose coloured cells (`ChromaLayout.saturationFloor` or more) lie within
    /// this many degrees of one hue, but for `monochromeOutliers` of them, is monochrome.
    public static let monochromeHueBand: Float = 20
    /// The band's cosine: a hue lies within the band when its cosine with the mean is at least this.
    static let monochromeBandCosine = cosf(monochromeHueBand * .pi / 180)
    static let monochromeOutliers: Float = 0.03

    /// What the two windows' colours say.
    public enum Comparison: Sendable, Equatable {
        /// Both windows coloured alike (both monochrome or neither): the shape cells (off the
        /// background in both), how many of them lie off the fitted map (nil when too few are
        /// coloured to fit one), and the background's shift under that map.
        case mapped(shapes: Int, misfit: Int?, shift: Float)
        /// One window monochrome, the other not: how far the background moved, nil unless both
        /// backgrounds are coloured (`ChromaLayout.saturationFloor`).
        case oneMonochrome(backgroundMove: Float?)

        /// Other colours than the limits' edits give.
        public func disagrees(within limits: Limits) -> Bool {
            switch self {
            case .mapped(let shapes, let misfit, let shift):
                if shift > limits.shiftLimit { return true }
                guard let misfit else { return false }
                return misfit >= ShapeColours.minimumCells && Float(misfit) >= ShapeColours.misfitShare * Float(shapes)
            case .oneMonochrome(let backgroundMove):
                return (backgroundMove ?? 0) > limits.backgroundMoveLimit
            }
        }
    }

    /// The comparison of two aligned windows' cells with their plain backgrounds
    /// (`ColourMask.background`); nil when either has fewer than `minimumCells` coloured cells,
    /// or, both coloured alike, their backgrounds lie in different places (under half of the
    /// smaller one's background cells shared: the windows do not show one background).
    public static func compare(_ a: [ColourMask.Cell], background backgroundA: ColourMask.Cell, foreground foregroundA: [Bool],
                               _ b: [ColourMask.Cell], background backgroundB: ColourMask.Cell, foreground foregroundB: [Bool],
                               within limits: Limits) -> Comparison? {
        precondition(a.count == b.count && foregroundA.count == a.count && foregroundB.count == b.count)
        guard colouredCells(a) >= minimumCells, colouredCells(b) >= minimumCells else { return nil }
        let groundA = (backgroundA.cb, backgroundA.cr), groundB = (backgroundB.cb, backgroundB.cr)
        if monochrome(a) != monochrome(b) {
            let coloured = saturation(groundA) >= ChromaLayout.saturationFloor && saturation(groundB) >= ChromaLayout.saturationFloor
            return .oneMonochrome(backgroundMove: coloured ? distance(groundA, groundB) : nil)
        }
        var offsets: [(a: (Float, Float), b: (Float, Float))] = []
        var backgroundBoth = 0, plainA = 0, plainB = 0, colouredA = 0, colouredB = 0
        for index in a.indices {
            if !foregroundA[index] { plainA += 1 }
            if !foregroundB[index] { plainB += 1 }
            if !foregroundA[index] && !foregroundB[index] { backgroundBoth += 1 }
            guard foregroundA[index] && foregroundB[index] else { continue }
            let offsetA = (a[index].cb - backgroundA.cb, a[index].cr - backgroundA.cr)
            let offsetB = (b[index].cb - backgroundB.cb, b[index].cr - backgroundB.cr)
            if abs(offsetA.0) + abs(offsetA.1) > baseTolerance { colouredA += 1 }
            if abs(offsetB.0) + abs(offsetB.1) > baseTolerance { colouredB += 1 }
            offsets.append((offsetA, offsetB))
        }
        guard 2 * backgroundBoth >= min(plainA, plainB) else { return nil }
        let shapesTell = colouredA >= minimumCells && colouredB >= minimumCells
        // Without coloured shapes, the map that brings the backgrounds closest.
        let map = shapesTell ? fittedMap(offsets, limits) : fittedMap([(groundA, groundB)], limits)
        var misfit: Int?
        if shapesTell {
            misfit = offsets.reduce(0) { count, offset in
                let error = distance(offset.b, apply(map, offset.a))
                return count + (error > baseTolerance + limits.relativeTolerance * (abs(offset.a.0) + abs(offset.a.1)) ? 1 : 0)
            }
        }
        return .mapped(shapes: offsets.count, misfit: misfit, shift: distance(groundB, apply(map, groundA)))
    }

    /// Cells of `ChromaLayout.saturationFloor` or more chroma.
    static func colouredCells(_ cells: [ColourMask.Cell]) -> Int {
        cells.reduce(0) { $0 + (saturation(($1.cb, $1.cr)) >= ChromaLayout.saturationFloor ? 1 : 0) }
    }

    /// Whether a window's colour is one hue (or none): fewer than `minimumCells` coloured
    /// cells, or all but `monochromeOutliers` of them within `monochromeHueBand` of their mean
    /// hue. A sepia copy, or a graphic in shades of one colour.
    public static func monochrome(_ cells: [ColourMask.Cell]) -> Bool {
        oneHue(cells.map { (cb: $0.cb, cr: $0.cr) }) ?? true
    }

    /// Whether the coloured cells (`ChromaLayout.saturationFloor` or more) are all but
    /// `monochromeOutliers` of them within `monochromeHueBand` of their mean hue; nil when fewer
    /// than `minimumCells` are coloured.
    public static func oneHue(_ chroma: [(cb: Float, cr: Float)], minimumCells: Int = minimumCells) -> Bool? {
        // Hues as unit vectors: the mean hue is the direction of their sum, and a hue lies
        // within the band of it when its cosine with the sum is at least the band's (no
        // trigonometry: the judge asks this of every pairing's windows, `ChromaLayout.onlyOneToned`).
        var coloured = 0
        var sumCb: Float = 0, sumCr: Float = 0
        for cell in chroma {
            let length = saturation(cell)
            guard length >= ChromaLayout.saturationFloor else { continue }
            coloured += 1
            sumCb += cell.cb / length
            sumCr += cell.cr / length
        }
        guard coloured >= minimumCells else { return nil }
        // A sum of zero has no direction: measured from hue 0, as atan2(0, 0) is.
        let sumLength = saturation((sumCb, sumCr))
        let mean = sumLength > 0 ? (cb: sumCb / sumLength, cr: sumCr / sumLength) : (cb: Float(1), cr: Float(0))
        var outside = 0
        for cell in chroma {
            let length = saturation(cell)
            guard length >= ChromaLayout.saturationFloor else { continue }
            if (cell.cb * mean.cb + cell.cr * mean.cr) / length < monochromeBandCosine { outside += 1 }
        }
        return Float(outside) <= monochromeOutliers * Float(coloured)
    }

    /// The complex factor w that best maps the first offsets onto the second (least squares),
    /// its length held to the limits' `scaleRange` and its angle to their `turnLimit`.
    static func fittedMap(_ offsets: [(a: (Float, Float), b: (Float, Float))], _ limits: Limits) -> (Float, Float) {
        var real: Float = 0, imaginary: Float = 0, power: Float = 0
        for (x, y) in offsets {
            // y · conj(x)
            real += y.0 * x.0 + y.1 * x.1
            imaginary += y.1 * x.0 - y.0 * x.1
            power += x.0 * x.0 + x.1 * x.1
        }
        guard power > 0 else { return (1, 0) }
        var length = (real * real + imaginary * imaginary).squareRoot() / power
        var angle = length > 0 ? atan2f(imaginary, real) : 0
        length = min(max(length, limits.scaleRange.lowerBound), limits.scaleRange.upperBound)
        let limit = limits.turnLimit * .pi / 180
        angle = min(max(angle, -limit), limit)
        return (length * cosf(angle), length * sinf(angle))
    }

    private static func apply(_ w: (Float, Float), _ z: (Float, Float)) -> (Float, Float) {
        (w.0 * z.0 - w.1 * z.1, w.0 * z.1 + w.1 * z.0)
    }

    private static func saturation(_ z: (Float, Float)) -> Float {
        (z.0 * z.0 + z.1 * z.1).squareRoot()
    }

    private static func distance(_ x: (Float, Float), _ y: (Float, Float)) -> Float {
        abs(x.0 - y.0) + abs(x.1 - y.1)
    }
}

#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
