#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// A region of the scene lit differently between two views of one picture, after they are
/// registered: the other half of telling another shot from an edited copy (`LocalChange` is
/// the first). docs/FEATURES.md, "Near or similar", has the measurements behind every number.
///
/// `LocalChange` counts a cell as changed only when it lies outside the range of the other
/// view's 3×3 neighbourhood, which lets a crop's or a rotation's misfit explain itself. On
/// fine texture that range is wide, and a patch lit 40% brighter stays inside it; on a dark
/// scene the patch moves a few levels. What no edit does is move a whole region the same way:
/// tone edits move every level alike (the tone match cancels them), crops and resampling move
/// values both ways around every edge. So the two views are first registered (the first
/// window scaled and shifted until the two agree best), then averaged over 2×2 cells, which
/// cancels texture; a region of blocks all brighter (or all darker) by more than `levelStep`
/// is a change of the scene.
public enum RegionalGain {
    /// Cells per side of the compared views, as `LocalChange`.
    public static let gridSide = LocalChange.gridSide
    /// Cells per side for the coarse registration search.
    static let coarseSide = 12
    /// Gray levels by which a 2×2 block's average must differ, the same way over the region.
    /// Of the steps measured (6, 8, 10, 12 levels, on the corpora's real edits at the pairings
    /// `cull` judges them on), 10 was the lowest at which no development edit and 3 of 359
    /// holdout edits (a caption and a logo on one dark, plain image) reached the share.
    public static let levelStep: Float = 10
    /// The scales of the first window the registration may try, and the shifts of its centre
    /// (a share of its size) along each axis.
    static let scaleRange = 0.88...1.12, shiftRange = -0.06...0.06
    /// The registration's descent, coarsest first: the first stage tries all 26 neighbouring
    /// placements (a crop's scale and its centre are found together), the later ones, which
    /// start within a step of the best, the 6 along the axes.
    static let descent = [Stage(step: 0.03, side: coarseSide, diagonals: true), Stage(step: 0.015, side: coarseSide, diagonals: false),
                          Stage(step: 0.005, side: gridSide, diagonals: false)]
    /// Moves a stage of the descent makes at the most: from the unscaled, unshifted window to
    /// the edge of `scaleRange` is 4 moves of the first stage.
    static let mostMoves = 8
    /// A placement that leaves more than this share of the first view's cells outside its frame
    /// is not tried: too little would be compared.
    static let leastInside = 0.8

    /// A scale and shift of a window about its centre.
    struct Placement: Equatable {
        var scale = 1.0, dx = 0.0, dy = 0.0

        /// Within `scaleRange` and `shiftRange` (allowing for the steps' rounding).
        var isWithinRange: Bool {
            let slack = 1e-9
            func within(_ value: Double, _ range: ClosedRange<Double>) -> Bool {
                value >= range.lowerBound - slack && value <= range.upperBound + slack
            }
            return within(scale, scaleRange) && within(dx, shiftRange) && within(dy, shiftRange)
        }

        func applied(to window: FeatureWindow) -> FeatureWindow {
            let width = window.width * scale, height = window.height * scale
            let centreX = window.x + window.width * (0.5 + dx), centreY = window.y + window.height * (0.5 + dy)
            return FeatureWindow(x: centreX - width / 2, y: centreY - height / 2, width: width, height: height)
        }
    }

    /// The share of the frame in the largest region lit differently between `windowA` of
    /// thumbnail `a` (mirrored first when `mirroredA`) and `windowB` of `b`, both
    /// `LayoutThumbnail.side`² thumbnails or detail layouts, once registered; the least over `LocalChange`'s
    /// rotations (stopping at the first under `settledBelow`).
    public static func largestRegion(_ a: [UInt8], _ windowA: FeatureWindow, mirroredA: Bool = false,
                                     _ b: [UInt8], _ windowB: FeatureWindow,
                                     settledBelow: Double = LocalChange.sceneChangeShare) -> Double {
        let samplerA = LayoutThumbnail.sampler(mirroredA ? LayoutThumbnail.mirrored(a) : a)
        let samplerB = LayoutThumbnail.sampler(b)
        let n = gridSide
        let viewB = samplerB.cells(windowB, columns: n, rows: n)
        let target = ToneTarget(viewB)
        let asPaired = pairedRegion(samplerA, windowA, viewB, target)
        if asPaired < settledBelow * fitsAsPaired { return asPaired }
        let placed = register(samplerA, windowA, samplerB, windowB).applied(to: windowA)
        let viewA = samplerA.cells(placed, columns: n, rows: n)
        let inside = insideCells(placed, side: n).mask(side: n)
        var least = Double.infinity
        for degrees in LocalChange.rotations {
            let rotated = degrees == 0 ? viewA : LocalChange.rotate(viewA, degrees: degrees)
            let matched = target.matched(rotated)
            least = min(least, Double(largestSignedRegion(matched, viewB, inside: inside)) / Double(n * n))
            if least < settledBelow { break }
        }
        return least
    }

    /// Views whose largest region at half `levelStep`, as paired, covers under this share of
    /// `settledBelow` (a half: 2.75% of the frame for a change of the scene) are not
    /// registered. Registration exists to take out a misfit that would read as a region; views
    /// that show none even at half the level, over half the share, fit as they are, and a
    /// descent from there only moves away from a placement that fits. At a million realistic
    /// rows 75,404 of 117,915 calls stop here (judging 31.49 → 27.66 s); registered anyway,
    /// 1,338 of them came out past `settledBelow`: the descent had drifted off, the misfit it
    /// made read as a region. The corpora, their burst frames and the end-to-end library group
    /// the same either way (bench/RESULTS.md, "Views that fit as paired").
    static let fitsAsPaired = 0.5

    /// The share of the frame in the largest region lit differently at half `levelStep` between
    /// the first view as paired (`windowA`, unregistered, unrotated) and the second, tone-matched.
    static func pairedRegion(_ samplerA: AreaSampler, _ windowA: FeatureWindow, _ viewB: [Float], _ target: ToneTarget) -> Double {
        let n = gridSide
        let viewA = target.matched(samplerA.cells(windowA, columns: n, rows: n))
        return Double(largestSignedRegion(viewA, viewB, inside: insideCells(windowA, side: n).mask(side: n), level: levelStep / 2)) / Double(n * n)
    }

    /// The placement of the first window under which the two views agree best: a descent from
    /// the window as the pairing placed it, each stage of `descent` moving to the best of the
    /// neighbouring placements while one agrees better. Views are compared standardised (mean
    /// 0, deviation 1) over the cells inside the frame, so brightness and contrast edits do not
    /// pull the placement. The standardised mismatch of area-averaged cells changes smoothly
    /// with scale and shift, and candidate search pairs windows that already nearly line up:
    /// the descent (grouping rules 16) decides the three corpora as the search of the whole
    /// range that rules 15 made (9 scales × 5 × 5 shifts, then two refining passes) did, at
    /// about a third of its cost (bench/RESULTS.md, "A region lit differently, faster"). Rules
    /// 18 try each placement of a stage once and work it out as the stage's start plus whole
    /// steps (summed move by move before, which rounds differently): the same groups at a
    /// million rows and on the corpora. Before, a descent resampled about 70 placements (53
    /// coarse, 18 fine), many of them twice.
    static func register(_ samplerA: AreaSampler, _ windowA: FeatureWindow, _ samplerB: AreaSampler, _ windowB: FeatureWindow) -> Placement {
        // Each placement is resampled into the same scratch: the judge makes this call for
        // most pairs it looks at closely.
        withUnsafeTemporaryAllocation(of: Float.self, capacity: gridSide * gridSide) { scratch in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Lattice.words) { visited in
                let coarse = samplerB.cells(windowB, columns: coarseSide, rows: coarseSide)
                let fine = samplerB.cells(windowB, columns: gridSide, rows: gridSide)
                var best = Placement(), bestScore = Float.infinity, bestSide = 0
                for stage in descent {
                    let reference = stage.side == coarseSide ? coarse : fine
                    if stage.side != bestSide {
                        bestScore = mismatch(samplerA, windowA, best, reference, side: stage.side, under: .infinity, scratch: scratch)
                        bestSide = stage.side
                    }
                    // The stage's placements lie on a lattice of its step around where it
                    // starts. A placement tried once is not tried again when the next centre
                    // neighbours it too: it lost to the best then, and the best only gets better
                    // (most of the first stage's 26 neighbours of a new centre were neighbours
                    // of the last one).
                    let origin = best
                    var lattice = Lattice(visited)
                    var at = Lattice.Point(), bestAt = at
                    lattice.visit(at)
                    for _ in 0..<mostMoves {
                        at = bestAt
                        for move in stage.moves {
                            let point = Lattice.Point(scale: at.scale + move.scale, dx: at.dx + move.dx, dy: at.dy + move.dy)
                            guard lattice.visit(point) else { continue }
                            let placement = Placement(scale: origin.scale + Double(point.scale) * stage.step, dx: origin.dx + Double(point.dx) * stage.step,
                                                      dy: origin.dy + Double(point.dy) * stage.step)
                            guard placement.isWithinRange else { continue }
                            let score = mismatch(samplerA, windowA, placement, reference, side: stage.side, under: bestScore, scratch: scratch)
                            if score < bestScore { (best, bestScore, bestAt) = (placement, score, point) }
                        }
                        if bestAt == at { break }
                    }
                }
                return best
            }
        }
    }

    /// A stage of the registration's descent: the cells per side it compares on (`coarseSide`
    /// or `gridSide`), its step in scale and shift, and the changes of placement one of its
    /// moves tries, in steps.
    struct Stage {
        let side: Int
        let step: Double
        let moves: [Lattice.Point]

        init(step: Double, side: Int, diagonals: Bool) {
            self.side = side
            self.step = step
            let steps = [-1, 0, 1]
            if diagonals {
                moves = steps.flatMap { scale in steps.flatMap { dx in steps.map { dy in Lattice.Point(scale: scale, dx: dx, dy: dy) } } }
                    .filter { $0 != Lattice.Point() }
            } else {
                moves = [-1, 1].flatMap {
                    [Lattice.Point(scale: $0, dx: 0, dy: 0), Lattice.Point(scale: 0, dx: $0, dy: 0), Lattice.Point(scale: 0, dx: 0, dy: $0)]
                }
            }
        }
    }

    /// The placements one stage of the descent has tried, as points of its lattice (in steps
    /// from where it started): a bit each, in scratch of `words` words. A stage makes at most
    /// `mostMoves` moves of one step, so its points lie within `mostMoves + 1` steps of the
    /// start along each axis.
    struct Lattice {
        struct Point: Equatable {
            var scale = 0, dx = 0, dy = 0
        }

        static let reach = mostMoves + 1
        static let span = 2 * reach + 1
        static let words = (span * span * span + 63) / 64
        private let bits: UnsafeMutableBufferPointer<UInt64>

        init(_ scratch: UnsafeMutableBufferPointer<UInt64>) {
            precondition(scratch.count >= Self.words)
            bits = scratch
            bits.initialize(repeating: 0)
        }

        /// Marks `point` tried; whether it was not before.
        @discardableResult
        mutating func visit(_ point: Point) -> Bool {
            let index = ((point.scale + Self.reach) * Self.span + point.dx + Self.reach) * Self.span + point.dy + Self.reach
            let mask: UInt64 = 1 << UInt64(index & 63)
            if bits[index >> 6] & mask != 0 { return false }
            bits[index >> 6] |= mask
            return true
        }
    }

    /// The mean absolute difference of the standardised views over the cells of the placed
    /// window inside the frame; infinity when fewer than `leastInside` of them are. Once the
    /// running mean reaches `bound` the placement cannot be the best so far, and the running
    /// mean is returned as it stands. `scratch` holds at least `side`² cells.
    static func mismatch(_ samplerA: AreaSampler, _ windowA: FeatureWindow, _ placement: Placement, _ reference: [Float], side: Int,
                         under bound: Float, scratch: UnsafeMutableBufferPointer<Float>) -> Float {
        let placed = placement.applied(to: windowA)
        let inside = insideCells(placed, side: side)
        let count = inside.count
        guard Double(count) >= leastInside * Double(side * side) else { return .infinity }
        samplerA.cells(placed, columns: side, rows: side, into: scratch)
        return reference.withUnsafeBufferPointer { reference in
            func moments(_ values: UnsafeBufferPointer<Float>) -> (mean: Float, scale: Float) {
                var sum: Float = 0, squares: Float = 0
                for row in inside.rows {
                    for index in (row * side + inside.columns.lowerBound)..<(row * side + inside.columns.upperBound) {
                        sum += values[index]; squares += values[index] * values[index]
                    }
                }
                let mean = sum / Float(count)
                return (mean, 1 / max(1, (squares / Float(count) - mean * mean).squareRoot()))
            }
            let view = UnsafeBufferPointer(scratch)
            let a = moments(view), b = moments(reference)
            var total: Float = 0
            for row in inside.rows {
                for index in (row * side + inside.columns.lowerBound)..<(row * side + inside.columns.upperBound) {
                    total += abs((view[index] - a.mean) * a.scale - (reference[index] - b.mean) * b.scale)
                }
                // The sum only grows: past the bound it stays past it.
                if total / Float(count) >= bound { break }
            }
            return total / Float(count)
        }
    }

    /// The cells of a `side`² grid over a placed window that lie inside the frame (within a
    /// 256th of it; the sampler darkens a cell past the frame's edge): a rectangle of the grid,
    /// since along each axis the cells that start inside and those that end inside are each a
    /// run from one end.
    struct InsideCells {
        var columns: Range<Int>, rows: Range<Int>
        var count: Int { columns.count * rows.count }

        /// The cells, row-major, as flags.
        func mask(side: Int) -> [Bool] {
            (0..<side * side).map { rows.contains($0 / side) && columns.contains($0 % side) }
        }
    }

    static func insideCells(_ window: FeatureWindow, side: Int) -> InsideCells {
        let slack = 1.0 / 256
        func span(_ start: Double, _ length: Double) -> Range<Int> {
            var first = side, last = -1
            for cell in 0..<side
            where start + length * Double(cell) / Double(side) >= -slack && start + length * Double(cell + 1) / Double(side) <= 1 + slack {
                first = min(first, cell)
                last = cell
            }
            return first <= last ? first..<(last + 1) : 0..<0
        }
        return InsideCells(columns: span(window.x, window.width), rows: span(window.y, window.height))
    }

    /// Whether a third or more of `cells` lie within `LocalChange.flatDeviation` of their median
    /// in `view`: an opaque overlay. Looser than `LocalChange.isFlat` (half), because a region
    /// of 2×2 blocks reaches a cell further past the overlay's edge on every side, and those
    /// cells blend the overlay with the picture. A patch lit on texture has next to no flat cells.
    static func isOverlay(_ view: [Float], _ cells: UnsafeBufferPointer<Int>) -> Bool {
        guard !cells.isEmpty else { return true }
        return 3 * LocalChange.nearMedian(view, cells) >= cells.count
    }

    /// The blocks of the largest region of 2×2 blocks (8-connected) whose averages in `b` all
    /// lie more than `level` (`levelStep` unless asked) above, or all below, `a`'s, left out
    /// regions nearly flat in either view (an opaque overlay, `isOverlay`). Blocks with a cell
    /// outside the placed window's frame take no part. (In buffers: it runs for every
    /// placement's rotations the judge tries, and an array per block and per region was most
    /// of its time.)
    static func largestSignedRegion(_ a: [Float], _ b: [Float], inside: [Bool], level: Float = levelStep) -> Int {
        let n = gridSide, m = n - 1, blocks = m * m
        precondition(a.count == n * n && b.count == n * n && inside.count == n * n, "gridSide² views and frame")
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: blocks) { step in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * blocks) { scratch in
                withUnsafeTemporaryAllocation(of: Bool.self, capacity: 2 * blocks) { flags in
                    let stack = UnsafeMutableBufferPointer(rebasing: scratch[..<blocks])
                    let cells = UnsafeMutableBufferPointer(rebasing: scratch[blocks...])
                    let valid = UnsafeMutableBufferPointer(rebasing: flags[..<blocks])
                    let seen = UnsafeMutableBufferPointer(rebasing: flags[blocks...])
                    for y in 0..<m {
                        for x in 0..<m {
                            let corners = (y * n + x, y * n + x + 1, (y + 1) * n + x, (y + 1) * n + x + 1)
                            valid[y * m + x] = inside[corners.0] && inside[corners.1] && inside[corners.2] && inside[corners.3]
                            // Each corner's step added in turn, as the same float every time.
                            var sum: Float = 0
                            sum = sum + b[corners.0] - a[corners.0]
                            sum = sum + b[corners.1] - a[corners.1]
                            sum = sum + b[corners.2] - a[corners.2]
                            sum = sum + b[corners.3] - a[corners.3]
                            step[y * m + x] = sum / 4
                        }
                    }
                    var best = 0
                    for sign: Float in [1, -1] {
                        seen.initialize(repeating: false)
                        for start in 0..<blocks where valid[start] && !seen[start] && sign * step[start] > level {
                            // Each block is pushed once (marked seen as it is pushed).
                            seen[start] = true
                            stack[0] = start
                            var depth = 1, found = 0
                            while depth > 0 {
                                depth -= 1
                                let block = stack[depth], y = block / m, x = block % m
                                cells[found] = y * n + x
                                found += 1
                                for ny in max(0, y - 1)...min(m - 1, y + 1) {
                                    for nx in max(0, x - 1)...min(m - 1, x + 1) {
                                        let next = ny * m + nx
                                        if valid[next] && !seen[next] && sign * step[next] > level {
                                            seen[next] = true
                                            stack[depth] = next
                                            depth += 1
                                        }
                                    }
                                }
                            }
                            guard found > best else { continue }
                            let region = UnsafeBufferPointer(rebasing: cells[..<found])
                            if !isOverlay(a, region) && !isOverlay(b, region) { best = found }
                        }
                    }
                    return best
                }
            }
        }
    }
}

