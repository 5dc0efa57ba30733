/// A 16×16 layout of a photo's colour (mean Cb and Cr per cell), and the check that keeps colour
/// variants of one design apart: the same artwork in a warm and a cold palette has the same
/// luminance layout, so every gray feature calls it a duplicate.
///
/// What tells a colour variant from a colour edit is how far hues move, cell by cell. A grade
/// (warmer, cooler, more saturated) moves every hue a little and the same way; a palette
/// change moves them a lot. Measured on the development, holdout and hard corpora (a
/// prototype of this check on 8×8 layouts of whole frames): among cells coloured in both
/// photos, the median hue difference is at most 7.7° for every tone edit of the holdout
/// (gamma, contrast), 43° for the hard set's warm grade (red ×1.1, blue ×0.85: the strongest
/// grade in the corpora), under 20° for crops even unaligned, and 100° for the holdout's warm
/// and cold Ubuntu MATE artwork. The limit, 60°, sits between the grade and the variant.
///
/// Cells count as coloured when their chroma is at least `saturationFloor` away from gray in
/// both photos; with fewer than a quarter of the cells coloured the check says nothing (a
/// black-and-white copy, a sepia print, a photo of gray rocks): gray features decide alone.
public enum ChromaLayout {
    /// Cells per side of the layouts workers send (pipeline 5). Pipeline 4 sent 8×8: the hue
    /// and colour-order checks compare 6×6 cells and read either, but a plain graphic's shapes
    /// (a tenth of the frame, often less) need the finer grid to be told apart by colour
    /// (`ColourMask`).
    public static let side = 16
    /// Cells per side of the layouts stored rows may hold: this pipeline's and pipeline 4's.
    public static let storedSides = [16, 8]
    /// Cells per side when two windows are compared.
    public static let comparisonSide = 6
    public static let saturationFloor: Float = 8
    public static let minimumColouredShare: Float = 0.25
    public static let hueLimit: Float = 60

    /// 2 × 256 bytes: the Cb cells row by row, then the Cr cells.
    public static func make(_ planes: ChromaPlanes) -> [UInt8] {
        let cb = planes.cb.resized(width: side, height: side), cr = planes.cr.resized(width: side, height: side)
        return (cb + cr).map { UInt8(max(0, min(255, $0.rounded()))) }
    }

    /// The (Cb − 128, Cr − 128) cells of `window` of a layout, `comparisonSide`² of them,
    /// mirrored (left and right swapped) first if asked.
    public static func cells(of layout: [UInt8], in window: FeatureWindow, mirrored: Bool = false,
                             comparisonSide: Int = comparisonSide) -> [(cb: Float, cr: Float)] {
        guard let side = side(of: layout) else { preconditionFailure("a chroma layout is 2 × 16² or 2 × 8² bytes, not \(layout.count)") }
        func plane(_ offset: Int) -> [Float] {
            var values = Array(layout[offset..<(offset + side * side)])
            if mirrored {
                values = (0..<side).flatMap { row in values[(row * side)..<((row + 1) * side)].reversed() }
            }
            return AreaSampler(GrayImage(width: side, height: side, pixels: values))
                .cells(window, columns: comparisonSide, rows: comparisonSide)
        }
        return zip(plane(0), plane(side * side)).map { (cb: $0 - 128, cr: $1 - 128) }
    }

    /// The side of a stored layout of `bytes.count` bytes, nil if no layout is that long.
    public static func side(of bytes: [UInt8]) -> Int? {
        storedSides.first { 2 * $0 * $0 == bytes.count }
    }

    /// Whether `bytes` is a chroma layout (of this pipeline or pipeline 4).
    public static func isLayout(_ bytes: [UInt8]) -> Bool { isLayout(byteCount: bytes.count) }

    public static func isLayout(byteCount: Int) -> Bool { storedSides.contains { 2 * $0 * $0 == byteCount } }

    /// The median hue difference (degrees) over the cells coloured in both, or nil when too
    /// few are coloured to say.
    public static func hueDifference(_ a: [(cb: Float, cr: Float)], _ b: [(cb: Float, cr: Float)], minimumCells: Int? = nil) -> Float? {
        precondition(a.count == b.count && !a.isEmpty)
        var differences: [Float] = []
        for (x, y) in zip(a, b) {
            let saturationX = (x.cb * x.cb + x.cr * x.cr).squareRoot(), saturationY = (y.cb * y.cb + y.cr * y.cr).squareRoot()
            guard saturationX >= saturationFloor, saturationY >= saturationFloor else { continue }
            var angle = abs(Self.atan2(x.cr, x.cb) - Self.atan2(y.cr, y.cb)) * 180 / .pi
            if angle > 180 { angle = 360 - angle }
            differences.append(angle)
        }
        guard Float(differences.count) >= minimumCells.map(Float.init) ?? minimumColouredShare * Float(a.count), !differences.isEmpty else { return nil }
        differences.sort()
        return differences[differences.count / 2]
    }

    /// Whether the colours say the two are different pictures (`hueDifference` over the limit),
    /// on the cells that carry evidence: where both windows show their plain background (each
    /// one's most common colour, when at least `LayoutThumbnail.flatShare` of the cells are
    /// within `flatTolerance` of it) they agree whatever the pictures are, so those cells are
    /// left out when enough others are coloured. Two different graphics on backgrounds of one
    /// hue were called the same colours by their backgrounds alone.
    public static func disagree(_ a: [(cb: Float, cr: Float)], _ b: [(cb: Float, cr: Float)]) -> Bool {
        if let flatA = plainColour(a), let flatB = plainColour(b) {
            var keptA: [(cb: Float, cr: Float)] = [], keptB: [(cb: Float, cr: Float)] = []
            for (x, y) in zip(a, b) where !(near(x, flatA) && near(y, flatB)) {
                keptA.append(x)
                keptB.append(y)
            }
            if !keptA.isEmpty, let difference = hueDifference(keptA, keptB, minimumCells: Int(minimumColouredShare * Float(a.count))) {
                return difference > hueLimit
            }
        }
        return hueDifference(a, b).map { $0 > hueLimit } ?? false
    }

    /// Whether one window is toned and the other is not: a black-and-white copy toned one hue
    /// (sepia, a cyanotype) against colours of several hues. Each needs `minimumColouredShare`
    /// of its cells coloured (a gray copy has too few, and the hue check says nothing of it
    /// anyway), and `ShapeColours.oneHue` says which are one hue. Toning paints every gray level
    /// with one colour, so the copy's hues and colour order follow its grays, not its
    /// original's colours: neither `disagree` nor `ColourOrder` can compare the two, as neither
    /// can compare a gray copy (`ColourMap`, which asks whether an edit took colour away, still
    /// does). Two windows of one hue each (the warm and the cold palette of one artwork) are
    /// compared as before, and so is a coloured window with a plain background (`plainColour`):
    /// a plain graphic's colours are its shapes', judged by `ShapeColours`, which has a rule of
    /// its own for one monochrome window. (The toned window's grays often make it plain: its
    /// chroma follows its luma.) Rules 41; bench/RESULTS.md, "Edits no corpus makes; toned copies".
    public static func onlyOneToned(_ a: [(cb: Float, cr: Float)], _ b: [(cb: Float, cr: Float)]) -> Bool {
        let minimum = Int((minimumColouredShare * Float(a.count)).rounded(.up))
        guard let oneHueA = ShapeColours.oneHue(a, minimumCells: minimum),
              let oneHueB = ShapeColours.oneHue(b, minimumCells: minimum), oneHueA != oneHueB else { return false }
        return plainColour(oneHueA ? b : a) == nil
    }

    /// Chroma units within which two cells count as one plain colour.
    public static let flatTolerance: Float = 3

    private static func near(_ x: (cb: Float, cr: Float), _ y: (cb: Float, cr: Float)) -> Bool {
        abs(x.cb - y.cb) + abs(x.cr - y.cr) <= flatTolerance
    }

    /// The colour most cells share, if at least a fifth of them do: a plain background.
    public static func plainColour(_ cells: [(cb: Float, cr: Float)]) -> (cb: Float, cr: Float)? {
        var best: (cell: (cb: Float, cr: Float), count: Int)?
        for cell in cells {
            let count = cells.reduce(0) { $0 + (near($1, cell) ? 1 : 0) }
            if count > best?.count ?? 0 { best = (cell, count) }
        }
        guard let best, Float(best.count) >= 0.2 * Float(cells.count) else { return nil }
        return best.cell
    }

    private static func atan2(_ y: Float, _ x: Float) -> Float {
        #if canImport(Glibc)
        Glibc.atan2f(y, x)
        #else
        Foundation.atan2(y, x)
        #endif
    }
}

#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
