@testable import Analysis
import Foundation
import Testing

/// `LocalChange`: edits (tone, crop, a small rotation, an opaque overlay) leave no change of the
/// scene; a region of the scene lit differently or a subject that moved does.
@Suite("Local change")
struct LocalChangeTests {
    /// A textured scene as a function of the frame's fractions (0...1 each way), gray levels.
    static func scene(_ x: Double, _ y: Double) -> Double {
        110 + 50 * sin(x * 19) * cos(y * 13) + 35 * sin((x + 2 * y) * 11) + 20 * cos(x * 31 - y * 7)
    }

    /// The 32×32 thumbnail of `window` of `scene` (by default the one above; each cell sampled 4×4 and averaged, like the
    /// worker's area average), points mapped through `transform` first, values through `tone`.
    static func thumbnail(_ window: FeatureWindow = .full, scene: (Double, Double) -> Double = LocalChangeTests.scene,
                          transform: (Double, Double) -> (Double, Double) = { ($0, $1) },
                          tone: (Double, Double, Double) -> Double = { value, _, _ in value }) -> [UInt8] {
        let side = LayoutThumbnail.side
        return (0..<side * side).map { index in
            let row = index / side, column = index % side
            var total = 0.0
            for sy in 0..<4 {
                for sx in 0..<4 {
                    let x = window.x + window.width * (Double(column) + (Double(sx) + 0.5) / 4) / Double(side)
                    let y = window.y + window.height * (Double(row) + (Double(sy) + 0.5) / 4) / Double(side)
                    let (tx, ty) = transform(x, y)
                    total += tone(scene(tx, ty), tx, ty)
                }
            }
            return UInt8(max(0, min(255, (total / 16).rounded())))
        }
    }

    static let original = thumbnail()

    @Test("the same picture: identical, toned, cropped, straightened by 3°, or under an opaque box, is no change of the scene")
    func edits() {
        let identical = LocalChange.between(Self.original, .full, Self.original, .full)
        #expect(identical == LocalChange(largestRegion: 0, changed: 0))

        let toned = Self.thumbnail(tone: { value, _, _ in 255 * pow(max(0, value) / 255, 0.7) })
        #expect(!LocalChange.between(Self.original, .full, toned, .full).isSceneChange)

        // A crop of 12% and 7%, compared with the original's nearest 90% window (off by 2%).
        let crop = Self.thumbnail(FeatureWindow(x: 0.12, y: 0.07, width: 0.86, height: 0.88))
        let cropped = LocalChange.between(Self.original, FeatureWindow(x: 0.1, y: 0.075, width: 0.9, height: 0.9), crop, .full)
        #expect(!cropped.isSceneChange, "\(cropped)")

        // Straightened: rotated 3° about the centre, the central 85% kept.
        let angle = 3.0 * .pi / 180
        let straightened = Self.thumbnail(FeatureWindow(x: 0.075, y: 0.075, width: 0.85, height: 0.85), transform: { x, y in
            let dx = x - 0.5, dy = y - 0.5
            return (0.5 + cos(angle) * dx - sin(angle) * dy, 0.5 + sin(angle) * dx + cos(angle) * dy)
        })
        let rotated = LocalChange.between(Self.original, FeatureWindow(x: 0.075, y: 0.075, width: 0.85, height: 0.85), straightened, .full)
        #expect(!rotated.isSceneChange, "\(rotated)")
        let unrotated = LocalChange.between(Self.original, FeatureWindow(x: 0.075, y: 0.075, width: 0.85, height: 0.85),
                                            Self.thumbnail(FeatureWindow(x: 0.075, y: 0.075, width: 0.85, height: 0.85)), .full)
        #expect(unrotated.changed <= rotated.changed + 0.01)

        // An opaque caption box over 12% of the frame: changed, but flat in the copy.
        let boxed = Self.thumbnail(tone: { value, x, y in (0.4...0.8).contains(x) && (0.6...0.9).contains(y) ? 30 : value })
        let overlay = LocalChange.between(Self.original, .full, boxed, .full)
        #expect(overlay.changed > LocalChange.sceneChangeShare, "the box is a change…")
        #expect(!overlay.isSceneChange, "…but an overlay, not the scene: \(overlay)")
    }

    @Test("another shot: a region lit differently, or a subject moved, is a change of the scene")
    func sceneChanges() {
        let lit = Self.thumbnail(tone: { value, x, y in (0.5...0.8).contains(x) && (0.15...0.5).contains(y) ? min(255, value * 1.4) : value })
        let brighter = LocalChange.between(Self.original, .full, lit, .full)
        #expect(brighter.isSceneChange, "\(brighter)")

        // A subject: a bright disc, here at the left, in the other shot at the right.
        func subject(at centre: Double) -> [UInt8] {
            Self.thumbnail(tone: { value, x, y in hypot(x - centre, y - 0.5) < 0.16 ? 235 - value / 8 : value })
        }
        let moved = LocalChange.between(subject(at: 0.3), .full, subject(at: 0.65), .full)
        #expect(moved.isSceneChange, "\(moved)")
        #expect(moved.largestRegion <= moved.changed)
    }

    @Test("the median by selection is the sorted values' middle one, and the cells near it are counted as a sort would")
    func medianBySelection() {
        var random = SplitMix64(seed: 11)
        for size in [1, 2, 3, 7, 64, 301] {
            for levels in [3, 40, 256] {
                // Few levels: many equal values, the partition's hard case.
                let view = (0..<size).map { _ in Float(random.next() % UInt64(levels)) + 0.25 * Float(random.next() % 3) }
                let cells = Array(view.indices.shuffled(using: &random))
                let sorted = cells.map { view[$0] }.sorted()
                let median = sorted[sorted.count / 2]
                let selected = withUnsafeTemporaryAllocation(of: Float.self, capacity: size) { buffer in
                    for (position, cell) in cells.enumerated() { buffer[position] = view[cell] }
                    return LocalChange.select(buffer, size / 2)
                }
                #expect(selected == median, "size \(size), \(levels) levels")
                #expect(LocalChange.nearMedian(view, cells) == sorted.filter { abs($0 - median) <= LocalChange.flatDeviation }.count)
            }
        }
    }
}
