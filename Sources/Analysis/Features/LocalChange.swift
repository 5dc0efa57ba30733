#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// What differs between two aligned views of one picture: a *local change of the scene* (a
/// subject that moved, a patch lit differently: another shot of the moment) or only what edits
/// do (tone, crop, a small rotation, an overlay). docs/FEATURES.md, "Near or similar", has the
/// measurements behind every number here.
///
/// Both windows are resampled to `gridSide`² from the photos' 32×32 layout thumbnails, the
/// first tone-matched onto the second (each value replaced by the other's value of the same
/// rank, so brightness, contrast, gamma and colour-to-gray edits cancel). A cell is *changed*
/// when its value lies more than `levelTolerance` gray levels outside the range of the other
/// view's 3×3 neighbourhood around it, in either direction: any shift of up to a cell, blur or
/// resampling yields values inside that range, so a crop's or a rotation's misfit explains
/// itself and only new content does not. A change of the scene must also show with the first
/// view rotated by ±2° and ±4° (a straightened copy): the smallest largest region counts.
///
/// Changed cells closer than a cell apart form one region. The largest region that is not an
/// opaque overlay (its cells nearly flat in one view: a box, a band, a solid logo) is the local
/// change; `largestRegion` is its share of the frame.
public struct LocalChange: Sendable, Equatable {
    /// The share of the compared frame in the largest region of change that is not an opaque
    /// overlay, the least over the rotations tried (when fewer cells changed in all than
    /// `sceneChangeShare`, their share: no region can be larger).
    public var largestRegion: Double
    /// The share of the compared frame changed in all (the least over the rotations tried).
    public var changed: Double

    public init(largestRegion: Double, changed: Double) {
        self.largestRegion = largestRegion
        self.changed = changed
    }

    /// Cells per side of the compared views: a 90% window of a 32×32 thumbnail is 29 pixels,
    /// so 24 never samples finer than the thumbnail holds.
    public static let gridSide = 24
    /// Gray levels outside the neighbourhood's range before a cell counts as changed. Of the
    /// tolerances tried in a prototype on the three corpora (6, 8, 10, 14), 6 caught the most
    /// burst frames (30 of 42 at 5.5%, 28 at 8 levels, fewer above) with every edit under it.
    public static let levelTolerance: Float = 6
    /// Rotations (degrees) tried for the first view: in a prototype of this rule the hard set's
    /// 4° straightened crops changed up to 8.3% of the frame unrotated, 5.0% with these.
    public static let rotations: [Double] = [0, -2, 2, -4, 4]
    /// A region most of whose cells lie within this many gray levels of their median in one view
    /// is an opaque overlay (`isFlat`).
    public static let flatDeviation: Float = 3
    /// A largest region at this share of the frame or more is a change of the scene. Of the 984
    /// edited copies of the development, holdout and hard corpora that confirm, 982 stay under
    /// it (crops and borders up to 5.4%); the hard set's burst frames reach 0–16%, 22 of 33 at
    /// 5.5% or more (bench/pair-relations.sh; docs/FEATURES.md, "Near or similar").
    public static let sceneChangeShare = 0.055

    /// Whether the views differ by a change of the scene rather than by edits.
    public var isSceneChange: Bool { largestRegion >= Self.sceneChangeShare }

    /// The local change between `windowA` of thumbnail `a` (mirrored first when `mirroredA`) and
    /// `windowB` of thumbnail `b`, both `LayoutThumbnail.side`² thumbnails. Rotations stop at
    /// the first whose largest region is under `settledBelow`: a caller asking only whether the
    /// change stays under a share needs no smaller one.
    public static func between(_ a: [UInt8], _ windowA: FeatureWindow, mirroredA: Bool = false,
                               _ b: [UInt8], _ windowB: FeatureWindow, settledBelow: Double = sceneChangeShare) -> LocalChange {
        let n = gridSide
        let viewA = LayoutThumbnail.sampler(mirroredA ? LayoutThumbnail.mirrored(a) : a).cells(windowA, columns: n, rows: n)
        let viewB = LayoutThumbnail.sampler(b).cells(windowB, columns: n, rows: n)
        // A change of the scene shows however the first view is straightened: the smallest
        // largest region over the rotations. Once one falls under the share, no further
        // rotation can matter (most pairs: one pass, unrotated).
        var result = LocalChange(largestRegion: .infinity, changed: .infinity)
        for degrees in rotations {
            let rotated = degrees == 0 ? viewA : rotate(viewA, degrees: degrees)
            let (_, mask) = changedCells(rotated, viewB)
            let count = mask.reduce(0) { $0 + ($1 ? 1 : 0) }
            // No region can reach the share when all changed cells together do not.
            let largest = Double(count) < sceneChangeShare * Double(n * n) ? count : largestRegion(mask, rotated, viewB)
            result.largestRegion = min(result.largestRegion, Double(largest) / Double(n * n))
            result.changed = min(result.changed, Double(count) / Double(n * n))
            if result.largestRegion < settledBelow { break }
        }
        return result
    }

    /// `viewA` tone-matched onto `viewB`, and the cells changed between them in either direction.
    static func changedCells(_ viewA: [Float], _ viewB: [Float]) -> (matchedA: [Float], changed: [Bool]) {
        let matched = toneMatched(viewA, onto: viewB)
        var mask = [Bool](repeating: false, count: gridSide * gridSide)
        markOutsideRange(of: matched, viewB, in: &mask)
        markOutsideRange(of: viewB, matched, in: &mask)
        return (matched, mask)
    }

    /// The unrotated comparison `between` starts with, for diagnoses: the first view
    /// tone-matched, the second, and the changed cells, each `gridSide`² row by row.
    public static func unrotatedViews(_ a: [UInt8], _ windowA: FeatureWindow, mirroredA: Bool = false,
                                      _ b: [UInt8], _ windowB: FeatureWindow) -> (a: [Float], b: [Float], changed: [Bool]) {
        let n = gridSide
        let viewA = LayoutThumbnail.sampler(mirroredA ? LayoutThumbnail.mirrored(a) : a).cells(windowA, columns: n, rows: n)
        let viewB = LayoutThumbnail.sampler(b).cells(windowB, columns: n, rows: n)
        let (matched, mask) = changedCells(viewA, viewB)
        return (matched, viewB, mask)
    }

    /// `view` rotated by `degrees` about its centre, bilinear, edges clamped.
    static func rotate(_ view: [Float], degrees: Double) -> [Float] {
        let n = gridSide
        let angle = degrees * .pi / 180, c = cos(angle), s = sin(angle), centre = Double(n - 1) / 2
        var out = [Float](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                let dx = Double(x) - centre, dy = Double(y) - centre
                let sx = min(max(c * dx + s * dy + centre, 0), Double(n - 1))
                let sy = min(max(-s * dx + c * dy + centre, 0), Double(n - 1))
                let x0 = min(Int(sx), n - 2), y0 = min(Int(sy), n - 2)
                let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
                let top = view[y0 * n + x0] * (1 - fx) + view[y0 * n + x0 + 1] * fx
                let bottom = view[(y0 + 1) * n + x0] * (1 - fx) + view[(y0 + 1) * n + x0 + 1] * fx
                out[y * n + x] = top * (1 - fy) + bottom * fy
            }
        }
        return out
    }

    /// `values` with each replaced by the value of the same rank in `target`: a histogram match.
    /// Ranked by counting, by gray level (values within one level share the middle rank of
    /// their bin): no sort, and a level is far below `levelTolerance`.
    static func toneMatched(_ values: [Float], onto target: [Float]) -> [Float] {
        let bins = 256 * binsPerLevel
        @inline(__always) func bin(_ value: Float) -> Int { min(bins - 1, max(0, Int(value * Float(binsPerLevel)))) }
        // The target's values in bin order (within a bin, in index order): sorted to a level.
        var targetCounts = [Int](repeating: 0, count: bins + 1)
        for value in target { targetCounts[bin(value) + 1] += 1 }
        for index in 1...bins { targetCounts[index] += targetCounts[index - 1] }
        var sortedTarget = [Float](repeating: 0, count: target.count)
        for value in target {
            sortedTarget[targetCounts[bin(value)]] = value
            targetCounts[bin(value)] += 1
        }
        var counts = [Int](repeating: 0, count: bins), before = [Int](repeating: 0, count: bins)
        for value in values { counts[bin(value)] += 1 }
        for index in 1..<bins { before[index] = before[index - 1] + counts[index - 1] }
        let scale = Double(target.count) / Double(values.count)
        return values.map { value in
            let b = bin(value)
            let middle = (Double(before[b]) + Double(counts[b] - 1) / 2) * scale
            return sortedTarget[min(target.count - 1, max(0, Int(middle.rounded())))]
        }
    }

    /// Histogram bins per gray level in `toneMatched`.
    static let binsPerLevel = 1

    /// Marks in `mask` the cells of `view` more than `levelTolerance` outside the range of
    /// `reference`'s 3×3 neighbourhood (clamped at the edges) around the same cell. The range
    /// is taken in two passes, along rows then columns.
    static func markOutsideRange(of reference: [Float], _ view: [Float], in mask: inout [Bool]) {
        let n = gridSide
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * n * n) { rows in
            // rows[i] the low, rows[n² + i] the high of the cell and its left and right neighbours.
            for y in 0..<n {
                for x in 0..<n {
                    var low = reference[y * n + x], high = low
                    if x > 0 { low = min(low, reference[y * n + x - 1]); high = max(high, reference[y * n + x - 1]) }
                    if x < n - 1 { low = min(low, reference[y * n + x + 1]); high = max(high, reference[y * n + x + 1]) }
                    rows[y * n + x] = low
                    rows[n * n + y * n + x] = high
                }
            }
            for y in 0..<n {
                for x in 0..<n {
                    var low = rows[y * n + x], high = rows[n * n + y * n + x]
                    if y > 0 { low = min(low, rows[(y - 1) * n + x]); high = max(high, rows[n * n + (y - 1) * n + x]) }
                    if y < n - 1 { low = min(low, rows[(y + 1) * n + x]); high = max(high, rows[n * n + (y + 1) * n + x]) }
                    let value = view[y * n + x]
                    if value < low - levelTolerance || value > high + levelTolerance { mask[y * n + x] = true }
                }
            }
        }
    }

    /// The changed cells of the largest region that is not an opaque overlay. Regions join
    /// changed cells less than two cells apart (the mask grown by one cell, 8-connected): a
    /// moved subject changes its outline and texture, not every cell between.
    static func largestRegion(_ mask: [Bool], _ a: [Float], _ b: [Float]) -> Int {
        let n = gridSide
        var grown = [Bool](repeating: false, count: n * n)
        for index in mask.indices where mask[index] {
            let y = index / n, x = index % n
            for ny in max(0, y - 1)...min(n - 1, y + 1) {
                for nx in max(0, x - 1)...min(n - 1, x + 1) { grown[ny * n + nx] = true }
            }
        }
        var region = [Int](repeating: -1, count: n * n)
        var best = 0
        for start in grown.indices where grown[start] && region[start] < 0 {
            var stack = [start], cells: [Int] = []
            region[start] = start
            while let index = stack.popLast() {
                if mask[index] { cells.append(index) }
                let y = index / n, x = index % n
                for ny in max(0, y - 1)...min(n - 1, y + 1) {
                    for nx in max(0, x - 1)...min(n - 1, x + 1) where grown[ny * n + nx] && region[ny * n + nx] < 0 {
                        region[ny * n + nx] = start
                        stack.append(ny * n + nx)
                    }
                }
            }
            guard cells.count > best else { continue }
            if !isFlat(a, cells) && !isFlat(b, cells) { best = cells.count }
        }
        return best
    }

    /// Whether most of `cells` (half or more) lie within `flatDeviation` of their median in
    /// `view`: an opaque overlay's fill, whose edge cells blend with the picture around it.
    static func isFlat(_ view: [Float], _ cells: [Int]) -> Bool {
        guard !cells.isEmpty else { return true }
        let values = cells.map { view[$0] }.sorted()
        let median = values[values.count / 2]
        let near = values.reduce(0) { $0 + (abs($1 - median) <= flatDeviation ? 1 : 0) }
        return 2 * near >= values.count
    }
}
