import Analysis
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

    @Test("a photo's cells are those the judge works out, through the kept sums of its thumbnail or its detail layout")
    func photosCells() throws {
        // Twelve photos of different layouts, more than the four kept sums: their windows come
        // interleaved, so sums are evicted and made again, mirrored and not. Every third keeps
        // a detail layout, which the judge reads instead of its thumbnail.
        var random = SplitMix64(seed: 61)
        func plane(_ side: Int) -> [UInt8] { (0..<side * side).map { _ in UInt8.random(in: 0...255, using: &random) } }
        var photos: [GroupingPhoto] = []
        for id in 0..<12 {
            let box: FeatureWindow? = id % 2 == 0 ? FeatureWindow(x: 0.05, y: 0.1, width: 0.9, height: 0.8) : nil
            let detail: [UInt8] = id % 3 == 0 ? plane(DetailLayout.side) : []
            photos.append(GroupingPhoto(id: Int64(id), path: "/\(id).jpg", sha256: [UInt8(id)], pHash: 0, dHash: 0,
                                        thumbnail: plane(LayoutThumbnail.side), width: 640, height: 480, fileSize: 1000, sharpness: 1,
                                        contentBox: box, detail: detail))
        }
        #expect(photos.filter { $0.hasDetail }.count == 4)
        let slots = [0, 1, 17, FeatureWindow.crops.count, Int(Candidate.mirrorSlot), Int(Candidate.contentSlot)]
        var cache = LayoutCellCache(capacity: 8)
        for round in 0..<3 {
            for index in photos.indices {
                for slot in slots {
                    // Rows and slots in a different order each round.
                    let row = Int32((index * 5 + round) % photos.count)
                    let cells = cache.cells(row: row, slot: slot, of: photos[Int(row)])
                    #expect(cells.ranks == PairJudge.cells(photos[Int(row)], slot), "row \(row), slot \(slot), round \(round)")
                }
            }
        }
        // A photo's windows are resampled from one sum of its plane and one of its mirror image:
        // the thumbnail's, each round for the eight without a detail layout (they evict each
        // other between rounds); the detail layout's for the four that keep one, in tables of
        // their own, at least once each and at most each round.
        #expect(cache.misses == 3 * photos.count * slots.count)
        #expect(cache.tables.fills == 3 * 8 * 2, "\(cache.tables.fills)")
        #expect((4 * 2...3 * 4 * 2).contains(cache.planeTables.fills), "\(cache.planeTables.fills)")
        // Without a cache the judge's own cells.
        var none = LayoutCellCache(capacity: 0)
        #expect(none.cells(row: 0, slot: 5, of: photos[3]).ranks == PairJudge.cells(photos[3], 5))
        #expect(none.cells(row: 0, slot: 5, of: photos[4]).ranks == PairJudge.cells(photos[4], 5))

        // Entries are refilled in place: cells a caller still holds keep their values when their
        // place is refilled for another photo (one place: every lookup evicts the last).
        var single = LayoutCellCache(capacity: 1)
        let held = single.cells(row: 0, slot: 0, of: photos[0])
        let heldTie = held.tieCount
        for row in Int32(1)..<4 { _ = single.cells(row: row, slot: 17, of: photos[Int(row)]) }
        #expect(held.ranks == PairJudge.cells(photos[0], 0) && held.tieCount == heldTie)
        #expect(LayoutThumbnail.evidenceDifference(held, LayoutThumbnail.RankedCells(PairJudge.cells(photos[0], 0))) == 0)
        #expect(single.cells(row: 3, slot: 17, of: photos[3]).ranks == PairJudge.cells(photos[3], 17) && single.hits == 1)
    }
}
