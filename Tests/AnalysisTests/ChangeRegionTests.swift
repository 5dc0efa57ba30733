@testable import Analysis
import Testing

/// The largest regions of change (`LocalChange.largestRegion`, `RegionalGain.largestSignedRegion`)
/// against the plain floods they replaced, kept here as references: every cell's eight
/// neighbours looked at in turn, arrays made per block and per region.
@Suite("Regions of change")
struct ChangeRegionTests {
    static let n = LocalChange.gridSide

    /// A view of gray levels: a textured ground with flat patches (an overlay's fill), so that
    /// regions that are nearly flat in a view are left out and others are not.
    static func view(_ random: inout SplitMix64, flatPatches: Int) -> [Float] {
        var cells = (0..<n * n).map { _ in Float.random(in: 20...230, using: &random) }
        for _ in 0..<flatPatches {
            let x0 = Int.random(in: 0..<n, using: &random), y0 = Int.random(in: 0..<n, using: &random)
            let size = Int.random(in: 2...9, using: &random), level = Float.random(in: 0...255, using: &random)
            for y in y0..<min(n, y0 + size) { for x in x0..<min(n, x0 + size) { cells[y * n + x] = level + Float.random(in: -2...2, using: &random) } }
        }
        return cells
    }

    /// Masks from sparse to dense, some of clustered blobs (regions that join across a gap of one cell).
    static func mask(_ random: inout SplitMix64, density: Double, blobs: Int) -> [Bool] {
        var mask = (0..<n * n).map { _ in Double.random(in: 0..<1, using: &random) < density }
        for _ in 0..<blobs {
            let x0 = Int.random(in: 0..<n, using: &random), y0 = Int.random(in: 0..<n, using: &random), size = Int.random(in: 1...8, using: &random)
            for y in y0..<min(n, y0 + size) { for x in x0..<min(n, x0 + size) where (x + y) % 3 != 0 { mask[y * n + x] = true } }
        }
        return mask
    }

    @Test("the largest region on rows of bits is the cell-by-cell flood's, on 2,000 masks and views")
    func localChangeRegions() {
        var random = SplitMix64(seed: 42)
        var nonZero = 0, partial = 0
        for trial in 0..<2_000 {
            let density = [0.0, 0.02, 0.08, 0.2, 0.5, 0.9, 1.0][trial % 7]
            let mask = Self.mask(&random, density: density, blobs: trial % 5)
            let a = Self.view(&random, flatPatches: trial % 4), b = Self.view(&random, flatPatches: (trial / 4) % 3)
            let expected = Self.largestRegionCellByCell(mask, a, b)
            #expect(LocalChange.largestRegion(mask, a, b) == expected, "trial \(trial)")
            if expected > 0 { nonZero += 1 }
            let changedCells = mask.reduce(0) { $0 + ($1 ? 1 : 0) }
            if expected > 0, expected < changedCells { partial += 1 }
        }
        // The masks make regions of every size, and many hold fewer cells than the mask: other
        // regions beside them, or the largest left out as flat.
        #expect(nonZero > 1_000)
        #expect(partial > 50)
    }

    @Test("the largest signed region in buffers is the arrays' one, on 2,000 views and frames")
    func regionalGainRegions() {
        var random = SplitMix64(seed: 43)
        var nonZero = 0
        for trial in 0..<2_000 {
            let a = Self.view(&random, flatPatches: trial % 4)
            // b: a lit (or darkened) patch over a's values, the rest moved a little.
            var b = a.map { $0 + Float.random(in: -6...6, using: &random) }
            let x0 = Int.random(in: 0..<Self.n, using: &random), y0 = Int.random(in: 0..<Self.n, using: &random)
            let size = Int.random(in: 0...14, using: &random), gain = Float.random(in: -40...40, using: &random)
            for y in y0..<min(Self.n, y0 + size) { for x in x0..<min(Self.n, x0 + size) { b[y * Self.n + x] += gain } }
            let inside = (0..<Self.n * Self.n).map { index in trial % 3 == 0 || (index % Self.n > 1 && index / Self.n < Self.n - 2) }
            let level: Float = trial % 2 == 0 ? RegionalGain.levelStep : RegionalGain.levelStep / 2
            let expected = Self.largestSignedRegionWithArrays(a, b, inside: inside, level: level)
            #expect(RegionalGain.largestSignedRegion(a, b, inside: inside, level: level) == expected, "trial \(trial)")
            if expected > 0 { nonZero += 1 }
        }
        #expect(nonZero > 500)
    }

    /// `LocalChange.largestRegion` as the thirty-eighth session wrote it: a cell-by-cell flood.
    static func largestRegionCellByCell(_ mask: [Bool], _ a: [Float], _ b: [Float]) -> Int {
        let count = n * n
        var open = [Bool](repeating: false, count: count)
        for index in 0..<count where mask[index] {
            let y = index / n, x = index % n
            for ny in max(0, y - 1)...min(n - 1, y + 1) { for nx in max(0, x - 1)...min(n - 1, x + 1) { open[ny * n + nx] = true } }
        }
        var best = 0
        for start in 0..<count where open[start] {
            open[start] = false
            var stack = [start], cells: [Int] = []
            while let index = stack.popLast() {
                if mask[index] { cells.append(index) }
                let y = index / n, x = index % n
                for ny in max(0, y - 1)...min(n - 1, y + 1) {
                    for nx in max(0, x - 1)...min(n - 1, x + 1) where open[ny * n + nx] {
                        open[ny * n + nx] = false
                        stack.append(ny * n + nx)
                    }
                }
            }
            guard cells.count > best else { continue }
            let flat = cells.withUnsafeBufferPointer { LocalChange.isFlat(a, $0) || LocalChange.isFlat(b, $0) }
            if !flat { best = cells.count }
        }
        return best
    }

    /// `RegionalGain.largestSignedRegion` with an array per block and per region, as before.
    static func largestSignedRegionWithArrays(_ a: [Float], _ b: [Float], inside: [Bool], level: Float) -> Int {
        let m = n - 1
        var step = [Float](repeating: 0, count: m * m), valid = [Bool](repeating: false, count: m * m)
        for y in 0..<m {
            for x in 0..<m {
                let cells = [y * n + x, y * n + x + 1, (y + 1) * n + x, (y + 1) * n + x + 1]
                valid[y * m + x] = cells.allSatisfy { inside[$0] }
                step[y * m + x] = cells.reduce(0) { $0 + b[$1] - a[$1] } / 4
            }
        }
        var best = 0
        for sign: Float in [1, -1] {
            var seen = [Bool](repeating: false, count: m * m)
            for start in 0..<(m * m) where valid[start] && !seen[start] && sign * step[start] > level {
                var stack = [start], cells: [Int] = []
                seen[start] = true
                while let block = stack.popLast() {
                    let y = block / m, x = block % m
                    cells.append(y * n + x)
                    for ny in max(0, y - 1)...min(m - 1, y + 1) {
                        for nx in max(0, x - 1)...min(m - 1, x + 1) {
                            let next = ny * m + nx
                            if valid[next] && !seen[next] && sign * step[next] > level { seen[next] = true; stack.append(next) }
                        }
                    }
                }
                let overlay = cells.withUnsafeBufferPointer { RegionalGain.isOverlay(a, $0) || RegionalGain.isOverlay(b, $0) }
                if cells.count > best && !overlay { best = cells.count }
            }
        }
        return best
    }
}
