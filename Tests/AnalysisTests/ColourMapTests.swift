@testable import Analysis
import Testing

/// `ColourMap` on 12×12 grids made up for it: a plain ground with a yellow and a magenta shape,
/// its colour edits, and a picture whose brightness agrees but whose colours do not.
@Suite("Colour map")
struct ColourMapTests {
    typealias Cell = ColourMask.Cell
    static let side = ColourMask.side
    static let ground = Cell(luma: 100, cb: -10, cr: 30), yellow = Cell(luma: 190, cb: -60, cr: 20), magenta = Cell(luma: 90, cb: 40, cr: 60)

    /// The ground with a yellow square (rows and columns 2–5) and a magenta band (rows 7–9,
    /// columns 6–10), then `paint` applied to each (x, y, cell).
    static func picture(_ paint: (Int, Int, Cell) -> Cell = { $2 }) -> [Cell] {
        (0..<side * side).map { index in
            let x = index % side, y = index / side
            let cell = (2...5).contains(x) && (2...5).contains(y) ? yellow : (6...10).contains(x) && (7...9).contains(y) ? magenta : ground
            return paint(x, y, cell)
        }
    }

    /// Every cell's chroma mapped by `w` (complex: scale and turn) and moved by `t`.
    static func edited(_ cells: [Cell], w: (Float, Float), t: (Float, Float)) -> [Cell] {
        cells.map { Cell(luma: $0.luma, cb: w.0 * $0.cb - w.1 * $0.cr + t.0, cr: w.0 * $0.cr + w.1 * $0.cb + t.1) }
    }

    @Test("colour edits are one map: saturation, a hue turn, a white balance, black and white, sepia, with their tone changes")
    func edits() {
        let original = Self.picture()
        let turn: (Float, Float) = (0.9063, 0.4226)  // 25°: its cosine and sine
        let maps: [((Float, Float), (Float, Float))] = [((1.6, 0), (0, 0)), ((0.5, 0), (0, 0)), (turn, (0, 0)), ((1, 0), (18, -15)),
                                                        ((0, 0), (0, 0)), ((0, 0), (-12, 14))]
        for (w, t) in maps {
            // A brighter, flatter copy too: the luma is tone-matched, not compared as it is.
            let copy = Self.edited(original, w: w, t: t).map { Cell(luma: 40 + 0.8 * $0.luma, cb: $0.cb, cr: $0.cr) }
            #expect(!ColourMap.disagree(original, copy), "\(w) \(t)")
            #expect(!ColourMap.disagree(copy, original), "\(w) \(t), the other way round")
        }
    }

    @Test("hues turned past 30 degrees are a colour variant, not an edit; a nearly gray picture's turn is not asked")
    func hueTurns() {
        let original = Self.picture()
        // 40°: every colour still follows the map exactly, but no hue edit turns that far.
        let variant = Self.edited(original, w: (0.7660, 0.6428), t: (0, 0))
        #expect(ColourMap.departingCells(original, variant) == 0)
        #expect(ColourMap.disagree(original, variant))
        #expect(ColourMap.disagree(variant, original))
        // The same turn taking most colour away (a scale of 0.2: toned) says nothing of hues.
        #expect(!ColourMap.disagree(original, Self.edited(original, w: (0.1532, 0.1286), t: (10, -8))))
        // A nearly gray picture (its colours within a few units): its chroma is noise, any turn fits.
        let grayish = Self.edited(original, w: (0.2, 0), t: (0, 0))
        #expect(!ColourMap.disagree(grayish, Self.edited(grayish, w: (0, 1), t: (0, 0))))
    }

    @Test("a ground with one small shape keeps its shape's colour through a grade")
    func smallShape() {
        // 4 of 144 cells: a refit to a share of the best-fitting cells would drop them and
        // map everything onto the ground's colour.
        let dot = (0..<Self.side * Self.side).map { index in
            let x = index % Self.side, y = index / Self.side
            return (5...6).contains(x) && (5...6).contains(y) ? Self.magenta : Self.ground
        }
        let graded = Self.edited(dot, w: (0.7, 0.2), t: (-6, 4))
        #expect(ColourMap.departingCells(dot, graded) == 0)
        #expect(ColourMap.departingCells(graded, dot) == 0)
    }

    @Test("colours that agree cell by cell follow the identity; one cell a half departure off asks for the fit")
    func agreeingInPlace() {
        let original = Self.picture()
        // A re-encode's error: every cell's colour a few units off, the luma toned.
        let reencoded = Self.picture { x, y, cell in Cell(luma: 30 + 0.7 * cell.luma, cb: cell.cb + Float((x + y) % 5) - 2, cr: cell.cr - Float(x % 3)) }
        #expect(ColourMap.coloursAgreeInPlace(original, reencoded))
        #expect(!ColourMap.disagree(original, reencoded))
        // One cell past half a departure: the shortcut does not answer, the fit does.
        let patched = Self.picture { x, y, cell in x == 0 && y == 0 ? Cell(luma: cell.luma, cb: cell.cb + 11, cr: cell.cr) : cell }
        #expect(!ColourMap.coloursAgreeInPlace(original, patched))
        #expect(!ColourMap.disagree(original, patched))
        // Another picture's colours are never in place: the patch of `otherColours` disagrees.
        let other = Self.picture { x, y, cell in x >= 7 && y <= 3 ? Cell(luma: 100, cb: 50, cr: -40) : cell }
        #expect(!ColourMap.coloursAgreeInPlace(original, other))
        #expect(ColourMap.disagree(original, other))
    }

    @Test("another picture: a patch of the ground in another colour of the same brightness disagrees, both ways")
    func otherColours() {
        let original = Self.picture()
        // A 5×4 patch in the top right corner: the cells whose whole neighbourhood lies in it depart.
        let other = Self.picture { x, y, cell in x >= 7 && y <= 3 ? Cell(luma: 100, cb: 50, cr: -40) : cell }
        #expect(ColourMap.departingCells(original, other) == 12)
        #expect(ColourMap.disagree(original, other))
        #expect(ColourMap.disagree(other, original))
        // A 3×4 patch departs in its two inner cells, under the three that disagree.
        let small = Self.picture { x, y, cell in (8...10).contains(x) && (1...4).contains(y) ? Cell(luma: 100, cb: 50, cr: -40) : cell }
        #expect(ColourMap.departingCells(original, small) == 2)
        #expect(!ColourMap.disagree(original, small))
    }

    @Test("the tone curve carries each level onto its counterpart whatever else changed")
    func toneCurve() {
        // A gamma-like curve over a smooth ramp: every cell onto its own counterpart.
        let ramp = (0..<144).map { Float($0) * 1.7 }
        let curved = ramp.map { 255 * ($0 / 255).squareRoot() }
        let carried = ColourMap.toneCurve(ramp, onto: curved)
        #expect(zip(carried, curved).allSatisfy { abs($0 - $1) < ColourMap.lumaAgreement })
        // Three levels, the brightest cells of the ground under a white band: the ground
        // still carries onto the ground.
        let levels = (0..<144).map { Float($0 < 20 ? 90 : $0 < 124 ? 100 : 190) }
        let banded = levels.indices.map { $0 >= 100 && $0 < 124 ? 250 : levels[$0] }
        let curve = ColourMap.toneCurve(levels, onto: banded)
        #expect(curve[50] == 100 && curve[110] == 100 && curve[130] == 190 && curve[5] == 90)
    }

    @Test("a window a cell off and an overlay are not colours that disagree")
    func misfitAndOverlay() {
        let original = Self.picture()
        // The same picture a cell to the right (a crop's pairing off by a cell), re-graded.
        let shifted = Self.edited((0..<Self.side * Self.side).map { index in
            let x = index % Self.side, y = index / Self.side
            return original[y * Self.side + max(0, x - 1)]
        }, w: (1.2, 0), t: (5, 0))
        #expect(!ColourMap.disagree(original, shifted))
        // A white caption band over the bottom rows: its brightness differs, so its colour is not asked.
        let captioned = Self.picture { _, y, cell in y >= 10 ? Cell(luma: 250, cb: 0, cr: 0) : cell }
        #expect(!ColourMap.disagree(original, captioned))
        #expect(!ColourMap.disagree(captioned, original))
        // A third of the frame under a caption, a darker band and a colour grade on top.
        let banner = Self.edited(Self.picture { _, y, cell in y >= 8 ? Cell(luma: 30, cb: 5, cr: -5) : cell }, w: (0.7, 0), t: (-6, 4))
        #expect(!ColourMap.disagree(original, banner))
        #expect(!ColourMap.disagree(banner, original))
        // Grids of another size: nothing to say.
        #expect(ColourMap.departingCells(original, [Cell](repeating: Cell(luma: 0, cb: 0, cr: 0), count: 10)) == 0)
    }

    @Test("gray levels are ordered as a sort by value orders them, ties and -0 included")
    func ascendingOrder() {
        var random = SplitMix64(seed: 53)
        for count in [0, 1, 2, 143, 144] {
            // Whole levels (many ties), fractions, -0, and values past 255 (one bucket).
            let values = (0..<count).map { index -> Float in
                switch index % 5 {
                case 0: Float(Int.random(in: 0...20, using: &random))
                case 1: Float.random(in: 0...255, using: &random)
                case 2: -0.0
                case 3: Float.random(in: 255...400, using: &random)
                default: Float(Int.random(in: 0...255, using: &random)) + 0.5
                }
            }
            let order = ColourMap.ascendingOrder(values)
            #expect(order.sorted() == Array(values.indices))
            #expect(order.map { values[$0] } == values.sorted(), "\(count) values")
        }
        // Not gray levels: sorted all the same.
        let signed: [Float] = [3, -2, 0, -7.5, 1]
        #expect(ColourMap.ascendingOrder(signed).map { signed[$0] } == signed.sorted())
    }
}
