@testable import Analysis
import Testing

/// `ColourMask`'s neighbour counts, measured channel by channel without branches, against measuring every
/// pair with `Cell.distance`.
@Suite("Colour mask")
struct ColourMaskTests {
    /// Each cell's count of cells within `tolerance` of it, pair by pair.
    static func countsPairByPair(_ cells: [ColourMask.Cell]) -> [Int32] {
        cells.map { cell in Int32(cells.filter { $0.distance(to: cell) <= ColourMask.tolerance }.count) }
    }

    /// Grids of plain grounds with shapes, noise about each colour, and colours that lie
    /// exactly `tolerance` apart (the boundary counts as near).
    static func grids() -> [[ColourMask.Cell]] {
        var random = SplitMix64(seed: 41)
        func uniform(_ range: ClosedRange<Float>) -> Float { Float.random(in: range, using: &random) }
        var grids: [[ColourMask.Cell]] = []
        for count in [1, 7, 8, 9, 143, 144, 145] {
            for noise: Float in [0, 3, 9] {
                let colours = (0..<3).map { _ in ColourMask.Cell(luma: uniform(0...255), cb: uniform(-60...60), cr: uniform(-60...60)) }
                grids.append((0..<count).map { _ in
                    let colour = colours[Int.random(in: 0..<3, using: &random)]
                    return ColourMask.Cell(luma: colour.luma + uniform(-noise...noise), cb: colour.cb + uniform(-noise...noise), cr: colour.cr)
                })
            }
        }
        // Distances of exactly 12 (4 + 4 + 4 levels, each exact in Float) and just past it.
        grids.append((0..<144).map { index in
            let step = Float(index % 4) * 4
            return ColourMask.Cell(luma: 100 + step, cb: step, cr: index % 5 == 0 ? step + 0.5 : step)
        })
        return grids
    }

    @Test("counts measured branch-free, channel by channel, equal counting pair by pair")
    func countsMatch() {
        for cells in Self.grids() {
            #expect(ColourMask.neighbourCounts(cells) == Self.countsPairByPair(cells), "\(cells.count) cells")
        }
        #expect(ColourMask.neighbourCounts([]).isEmpty)
    }

    @Test("a background with fewer cells off it than a limit: the lumas' screen never turns one away")
    func screenedBackground() {
        var screenedOut = 0
        for cells in Self.grids() {
            for limit in [1, 2, cells.count / 4, cells.count / 2, cells.count - 1, cells.count, cells.count + 1] where limit > 0 {
                let whole = ColourMask.background(cells).flatMap { found in found.foreground.filter { $0 }.count < limit ? found : nil }
                let screened = ColourMask.background(cells, fewerOffThan: limit)
                #expect(screened?.colour == whole?.colour && screened?.foreground == whole?.foreground, "\(cells.count) cells, limit \(limit)")
                if !ColourMask.mayShareOneColour(cells, atLeast: cells.count - limit + 1) { screenedOut += 1 }
            }
        }
        // Lumas exactly `tolerance` apart count as within it, as `Cell.distance` counts them.
        let steps = (0..<144).map { ColourMask.Cell(luma: $0 < 72 ? 100 : 112, cb: 0, cr: 0) }
        #expect(ColourMask.mayShareOneColour(steps, atLeast: 144))
        #expect(!ColourMask.mayShareOneColour(steps.map { ColourMask.Cell(luma: $0.luma == 112 ? 112.01 : 100, cb: 0, cr: 0) }, atLeast: 144))
        // The screen answers for some: a test of it, not only of `background`.
        #expect(screenedOut > 10)
    }

    @Test("the background is the colour with the most cells near it, the first of a tie")
    func backgroundIsTheMostCommonColour() throws {
        let ground = ColourMask.Cell(luma: 200, cb: 10, cr: -10), shape = ColourMask.Cell(luma: 40, cb: -30, cr: 30)
        let cells = (0..<144).map { $0 % 3 == 0 ? shape : ground }
        let background = try #require(ColourMask.background(cells))
        #expect(background.colour == ground)
        #expect(background.foreground == cells.map { $0 == shape })
        // Half and half: the first cell's colour.
        let even = (0..<144).map { $0 % 2 == 0 ? shape : ground }
        #expect(ColourMask.background(even)?.colour == shape)
        // No colour shared by a fifth of the cells: no background.
        let scattered = (0..<144).map { ColourMask.Cell(luma: Float($0) * 1.7, cb: Float($0 % 12) * 13, cr: 0) }
        #expect(ColourMask.background(scattered) == nil)
    }
}
