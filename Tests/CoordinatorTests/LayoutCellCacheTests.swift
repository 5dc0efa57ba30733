@testable import Coordinator
import Testing

/// `LayoutCellCache`: a lookup gives the cells of its own (photo, slot), worked out once while
/// they stay; entries that share a place evict each other, never answer for each other.
@Suite("Layout cell cache")
struct LayoutCellCacheTests {
    /// Cells that name their (row, slot).
    static func cells(_ row: Int32, _ slot: Int) -> [Float] { [Float(row), Float(slot)] }

    @Test("each (row, slot) gets its own cells; a repeat is not worked out again")
    func ownCells() {
        var cache = LayoutCellCache(capacity: 64)
        var made = 0
        for _ in 0..<3 {
            for row in Int32(0)..<8 {
                for slot in [0, 1, 51, 255] {
                    let cells = cache.cells(row: row, slot: slot) { made += 1; return Self.cells(row, slot) }
                    #expect(cells.ranks == Self.cells(row, slot))
                }
            }
        }
        // 32 keys in 64 places: most stay; whatever collides is made again, never mixed up.
        #expect(made >= 32 && made < 96, "\(made)")
        #expect(cache.hits + cache.misses == 96 && cache.misses == made)
    }

    @Test("more keys than places: every answer is still its own key's")
    func crowded() {
        var cache = LayoutCellCache(capacity: 4)
        for round in 0..<5 {
            for row in Int32(0)..<1000 {
                let slot = (Int(row) + round) % 7
                #expect(cache.cells(row: row, slot: slot) { Self.cells(row, slot) }.ranks == Self.cells(row, slot))
            }
        }
    }

    @Test("capacity 0 keeps nothing")
    func none() {
        var cache = LayoutCellCache(capacity: 0)
        var made = 0
        for _ in 0..<3 { _ = cache.cells(row: 1, slot: 0) { made += 1; return [1] } }
        #expect(made == 3 && cache.hits == 0)
    }
}
