/// Where a plain graphic's shapes lie, seen in colour: how much of two aligned windows lies
/// off their plain backgrounds, the evidence a plain graphic's layout gives.
///
/// A few flat shapes on a plain background say little: among 220,000 generated graphics
/// (bench/e2e-library.py), thousands of pairs of different pictures have a shape or two in
/// the same places, and the gray layout, hues and colour orders confirm them. What tells them
/// apart is their colours (`ShapeColours`, `PairJudge.plainGraphicsVerdict`). The cells off the
/// background are counted in colour, from the luma thumbnail and the 16×16 chroma layout
/// resampled to one grid: in gray levels alone a shape can vanish into its background (a green
/// square on a purple ground has the purple's luma).
public enum ColourMask {
    /// Cells per side of the grid the windows are compared on (`LayoutThumbnail.comparisonSide`).
    public static let side = 12
    /// How far (|ΔY| + |ΔCb| + |ΔCr|, in levels of 255) a cell may lie from the background's
    /// colour and still count as background: JPEG's error on a flat area and a cell that a
    /// shape's edge barely enters stay within it.
    public static let tolerance: Float = 12
    /// The share of the grid's cells at least that must share one colour for a window to have
    /// a plain background (`LayoutThumbnail.flatShare`).
    public static let backgroundShare = 0.2

    /// A cell's colour: luma and (Cb − 128, Cr − 128), in levels of 255.
    public struct Cell: Sendable, Equatable {
        public var luma: Float
        public var cb: Float
        public var cr: Float

        public init(luma: Float, cb: Float, cr: Float) {
            self.luma = luma
            self.cb = cb
            self.cr = cr
        }

        /// |ΔY| + |ΔCb| + |ΔCr|, in levels of 255.
        public func distance(to other: Cell) -> Float {
            abs(luma - other.luma) + abs(cb - other.cb) + abs(cr - other.cr)
        }
    }

    /// Which cells lie off the window's plain background (the colour the most cells lie
    /// within `tolerance` of, if `backgroundShare` of them do); nil without one.
    public static func foreground(_ cells: [Cell]) -> [Bool]? {
        background(cells)?.foreground
    }

    /// The window's plain background: its colour (the mean of the cells within `tolerance` of
    /// the colour the most cells lie near, if `backgroundShare` of them do) and which cells lie
    /// off it; nil without one.
    public static func background(_ cells: [Cell]) -> (colour: Cell, foreground: [Bool])? {
        guard !cells.isEmpty else { return nil }
        let counts = neighbourCounts(cells)
        var best = 0
        for index in counts.indices where counts[index] > counts[best] { best = index }
        let centre = cells[best], largest = Int(counts[best])
        guard Double(largest) >= backgroundShare * Double(cells.count) else { return nil }
        let foreground = cells.map { $0.distance(to: centre) > tolerance }
        var sum = Cell(luma: 0, cb: 0, cr: 0)
        for (cell, off) in zip(cells, foreground) where !off {
            sum.luma += cell.luma
            sum.cb += cell.cb
            sum.cr += cell.cr
        }
        let count = Float(largest)
        return (Cell(luma: sum.luma / count, cb: sum.cb / count, cr: sum.cr / count), foreground)
    }

    /// `background(cells)` when fewer than `limit` cells lie off it; nil otherwise. Then more
    /// than `cells.count - limit` cells lie within `tolerance` of one cell, so within
    /// `tolerance` of its luma too: when no luma holds that many within `tolerance`
    /// (`mayShareOneColour`, the lumas sorted: one pass), the cells' pairs are never
    /// measured. At a million realistic rows 121,000 of 255,000 whole frames asked whether
    /// they are plain graphics were answered so, and none of the 97,000 that are.
    public static func background(_ cells: [Cell], fewerOffThan limit: Int) -> (colour: Cell, foreground: [Bool])? {
        guard mayShareOneColour(cells, atLeast: cells.count - limit + 1), let found = background(cells) else { return nil }
        return found.foreground.reduce(0) { $0 + ($1 ? 1 : 0) } < limit ? found : nil
    }

    /// Whether `needed` cells or more could lie within `tolerance` of one cell's colour: some
    /// cell's luma has that many within `tolerance` of it (as `Cell.distance` measures the
    /// luma's part, which never exceeds the whole distance).
    static func mayShareOneColour(_ cells: [Cell], atLeast needed: Int) -> Bool {
        let count = cells.count
        guard needed > 1 else { return true }
        guard count >= needed else { return false }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * count) { scratch in
            // Sorted as `LayoutThumbnail.rank` sorts gray levels (a luma is an average of them).
            let keys = UnsafeMutableBufferPointer(rebasing: scratch[..<count])
            SortKeys.sortLevels(count: count, { cells[$0].luma }, keys: keys, spare: UnsafeMutableBufferPointer(rebasing: scratch[count...]))
            @inline(__always) func luma(_ position: Int) -> Float { SortKeys.value(of: keys[position]) }
            // The lumas within `tolerance` of each in turn: a run of the sorted ones, whose ends only move up.
            var low = 0, high = 0
            for centre in 0..<count {
                let level = luma(centre)
                while abs(luma(low) - level) > tolerance { low += 1 }
                while high + 1 < count && abs(luma(high + 1) - level) <= tolerance { high += 1 }
                if high - low + 1 >= needed { return true }
            }
            return false
        }
    }

    /// For each cell, how many cells (itself too) lie within `tolerance` of it, every pair
    /// measured once (the distance is symmetric). Asked of every plain-graphic pair the judge
    /// meets and of every photo whose frame might be a plain graphic: the colours are laid out
    /// channel by channel and each pair adds its 0 or 1 to both counts without a branch, which
    /// the compiler vectorises. In `Cell.distance`'s operations and order, so the counts are
    /// exactly those of measuring pair by pair with it, at about a third of the time
    /// (pair by pair it was 4% of a million photos' grouping, perf).
    static func neighbourCounts(_ cells: [Cell]) -> [Int32] {
        let count = cells.count
        return [Int32](unsafeUninitializedCapacity: count) { counts, initialized in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * count) { channels in
                let luma = UnsafeMutableBufferPointer(rebasing: channels[..<count])
                let cb = UnsafeMutableBufferPointer(rebasing: channels[count..<(2 * count)])
                let cr = UnsafeMutableBufferPointer(rebasing: channels[(2 * count)...])
                for (index, cell) in cells.enumerated() {
                    luma[index] = cell.luma
                    cb[index] = cell.cb
                    cr[index] = cell.cr
                }
                counts.initialize(repeating: 1)
                for index in 0..<count {
                    let cellLuma = luma[index], cellCb = cb[index], cellCr = cr[index]
                    var near: Int32 = 0
                    var other = index + 1
                    while other < count {
                        // |ΔY| + |ΔCb| + |ΔCr| as `distance` adds them (a difference's
                        // magnitude is the same either way round).
                        let distance = abs(luma[other] - cellLuma) + abs(cb[other] - cellCb) + abs(cr[other] - cellCr)
                        let isNear: Int32 = distance <= tolerance ? 1 : 0
                        near &+= isNear
                        counts[other] &+= isNear
                        other &+= 1
                    }
                    counts[index] &+= near
                }
            }
            initialized = count
        }
    }

    /// How much a whole frame's plain ground varies in the layout thumbnail (`side`² gray levels
    /// of `LayoutThumbnail`): the mean |difference| of the thumbnail's neighbouring pixels, across
    /// and down, where both lie in cells of the ground (`foreground` false, on this grid). The
    /// grid averages a fine texture flat (gravel, grass, a brick wall, wood grain read as a plain
    /// ground in colour), the thumbnail's pixels do not. 0 when no two neighbours lie in the ground.
    public static func groundTexture(_ thumbnail: [UInt8], side thumbnailSide: Int, foreground: [Bool]) -> Float {
        precondition(thumbnail.count == thumbnailSide * thumbnailSide && foreground.count == side * side)
        // Each thumbnail pixel's cell of this grid, by its centre.
        func inGround(_ x: Int, _ y: Int) -> Bool {
            !foreground[((2 * y + 1) * side / (2 * thumbnailSide)) * side + (2 * x + 1) * side / (2 * thumbnailSide)]
        }
        var total = 0, pairs = 0
        for y in 0..<thumbnailSide {
            for x in 0..<thumbnailSide where inGround(x, y) {
                let level = Int(thumbnail[y * thumbnailSide + x])
                if x + 1 < thumbnailSide, inGround(x + 1, y) {
                    total += abs(level - Int(thumbnail[y * thumbnailSide + x + 1]))
                    pairs += 1
                }
                if y + 1 < thumbnailSide, inGround(x, y + 1) {
                    total += abs(level - Int(thumbnail[(y + 1) * thumbnailSide + x]))
                    pairs += 1
                }
            }
        }
        return pairs == 0 ? 0 : Float(total) / Float(pairs)
    }

    /// How many cells lie off the plain background in either window; nil unless both have one.
    public static func foregroundCells(_ a: [Cell], _ b: [Cell]) -> Int? {
        precondition(a.count == b.count)
        guard let maskA = foreground(a), let maskB = foreground(b) else { return nil }
        return zip(maskA, maskB).reduce(0) { $0 + ($1.0 || $1.1 ? 1 : 0) }
    }
}
