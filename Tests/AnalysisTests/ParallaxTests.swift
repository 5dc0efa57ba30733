import Analysis
import Foundation
import Testing

/// `Parallax.spread`: how unevenly one plane is displaced against another, block by block.
@Suite("Parallax")
struct ParallaxTests {
    static let side = 32

    /// A textured plane (three crossed waves of periods 4–7 pixels, no two alike) seen
    /// displaced by `shift(x, y)` pixels across, sampled 4×4 a pixel.
    static func plane(shift: (Double, Double) -> Double = { _, _ in 0 }, flat: Bool = false) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                var sum = 0.0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let py = Double(y) + (Double(sy) + 0.5) / 4, px = Double(x) + (Double(sx) + 0.5) / 4 + shift(Double(x), Double(y))
                        sum += flat ? 120 : 128 + 40 * sin(0.9 * px + 0.3 * py) + 35 * sin(0.4 * px - 1.1 * py + 1) + 30 * sin(1.3 * px + 0.7 * py + 2)
                    }
                }
                out[y * side + x] = UInt8(max(0, min(255, (sum / 16).rounded())))
            }
        }
        return out
    }

    @Test("a plane and itself, or itself moved as a whole, show no parallax")
    func evenDisplacement() throws {
        let original = Self.plane()
        #expect(try #require(Parallax.spread(original, original, side: Self.side)) == 0)
        // Moved a pixel across: every block's best shift is the same pixel.
        let moved = Self.plane(shift: { _, _ in 1 })
        #expect(try #require(Parallax.spread(moved, original, side: Self.side)) < 0.1)
    }

    @Test("the top half moved one way and the bottom half the other is parallax")
    func unevenDisplacement() throws {
        let original = Self.plane()
        let twoDepths = Self.plane(shift: { _, y in y < Double(Self.side / 2) ? 1 : -1 })
        let spread = try #require(Parallax.spread(twoDepths, original, side: Self.side))
        // Blocks at two shifts a pixel either side of their mean: a deviation of about 1.
        #expect(spread > 0.8, "\(spread)")
    }

    @Test("planes with too few blocks that can be placed have no measure")
    func flatPlanes() {
        let flat = Self.plane(flat: true)
        #expect(Parallax.spread(flat, flat, side: Self.side) == nil)
        // A smooth ramp lines up anywhere along itself: no block is placeable.
        let ramp = (0..<(Self.side * Self.side)).map { UInt8(($0 % Self.side) * 4) }
        #expect(Parallax.spread(ramp, ramp, side: Self.side) == nil)
    }
}
