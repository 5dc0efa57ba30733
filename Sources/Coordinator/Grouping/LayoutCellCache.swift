import Analysis

/// The ranked layout cells of (photo, slot)s judged lately, with their largest ties, and whether
/// photos are plain graphics. A thread judges candidates sorted by pair, so one photo meets its
/// partners one after another, through the same few slots, and
/// the partners of a family of edits meet each other again and again: their cells are worked out
/// once for all of them, not once a pairing. 1,024 entries (about 4 MB a thread) took the
/// million-row benchmark's judging from 21.6–22.1 s to 18.7–19.6 s against the 16 kept before
/// (bench/RESULTS.md, "Shape colours").
struct LayoutCellCache {
    private var keys: [UInt64]
    private var values: [LayoutThumbnail.RankedCells]
    /// Whether each row's whole frame is a plain graphic (`PairJudge.isPlainGraphic`), a byte a
    /// row (0 not yet asked, 1 no, 2 yes): asked of every pair about to be near, a photo's answer
    /// serves all its partners (worked out per pair it was 4% of a million colour photos'
    /// grouping). Kept for every row (a megabyte a thread at a million), not in direct-mapped
    /// places as the cells are: partners come back far apart in the candidates' order. It
    /// took the check from 367 to 326 of a million rows' 12,000 samples (perf): most rows are
    /// asked once whatever is kept.
    private var plainByRow: [UInt8]
    private let mask: Int
    /// The running sums of the thumbnails resampled lately, and of the detail layouts
    /// (`GroupingPhoto.comparedPlane`) of textured photos.
    private(set) var tables = ThumbnailTables()
    private(set) var planeTables = ThumbnailTables(side: DetailLayout.side)
    private(set) var hits = 0
    private(set) var misses = 0

    /// Room for `capacity` (rounded up to a power of two) entries, each (photo, slot) in one
    /// place (direct-mapped: a lookup is one comparison); 0 keeps nothing. `rows`: how many rows
    /// (0 up to it) keep their plain-graphic answer; others are worked out when asked.
    init(capacity: Int = 1024, rows: Int = 0) {
        let size = capacity <= 0 ? 0 : 1 << (Int.bitWidth - (capacity - 1).leadingZeroBitCount)
        keys = [UInt64](repeating: .max, count: size)
        values = [LayoutThumbnail.RankedCells](repeating: LayoutThumbnail.RankedCells([]), count: size)
        plainByRow = [UInt8](repeating: 0, count: max(0, rows))
        mask = max(0, size - 1)
    }

    /// Whether `row`'s whole frame is a plain graphic, from `make` the first time it is asked.
    mutating func isPlainGraphic(row: Int32, make: () -> Bool) -> Bool {
        guard row >= 0, Int(row) < plainByRow.count else { return make() }
        switch plainByRow[Int(row)] {
        case 1: return false
        case 2: return true
        default:
            let made = make()
            plainByRow[Int(row)] = made ? 2 : 1
            return made
        }
    }

    /// A key's place in the tables: Fibonacci hashing spreads neighbouring rows and a row's
    /// slots over them.
    private func place(of key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    /// `photo`'s ranked cells for `slot` (`PairJudge.cells`), from the cache when `row`'s were
    /// worked out lately.
    mutating func cells(row: Int32, slot: Int, of photo: GroupingPhoto) -> LayoutThumbnail.RankedCells {
        if let kept = kept(row: row, slot: slot) { return kept }
        let (plane, side) = photo.comparedPlane
        // A turned frame's cells are of a turned plane, which the tables do not hold.
        guard !keys.isEmpty, plane.count == side * side, slot != Int(Candidate.turnedSlot) else {
            return keep(LayoutThumbnail.RankedCells(PairJudge.cells(photo, slot)), row: row, slot: slot)
        }
        // Resampled from the plane's running-sum table kept in `tables` (`planeTables` for a
        // textured photo's detail layout; the same cells as `PairJudge.cells`, without summing
        // the plane again for each of its windows), into the storage of the entry it replaces:
        // taken out of the table while it is refilled, so that no other reference keeps the
        // refill from working in place.
        let key = Self.key(row: row, slot: slot), index = place(of: key)
        var entry = LayoutThumbnail.RankedCells([])
        swap(&entry, &values[index])
        let mirrored = slot == Int(Candidate.mirrorSlot), window = PairJudge.window(photo, slot)
        func resample(from tables: inout ThumbnailTables) {
            let range = tables.range(row: row, mirrored: mirrored) { mirrored ? LayoutThumbnail.mirrored(plane, side: side) : plane }
            tables.withTable(range) { table in
                let cells = LayoutThumbnail.comparisonSide
                entry.refill(averages: cells * cells) { AreaSampler.cells(ofTable: table, width: side, height: side, window, columns: cells, rows: cells, into: $0) }
            }
        }
        if side == planeTables.side { resample(from: &planeTables) } else { resample(from: &tables) }
        keys[index] = key
        values[index] = entry
        return entry
    }

    /// The cells of (row, slot), from `make` unless kept.
    mutating func cells(row: Int32, slot: Int, make: () -> [Float]) -> LayoutThumbnail.RankedCells {
        kept(row: row, slot: slot) ?? keep(LayoutThumbnail.RankedCells(make()), row: row, slot: slot)
    }

    private static func key(row: Int32, slot: Int) -> UInt64 { UInt64(UInt32(bitPattern: row)) << 8 | UInt64(slot & 0xFF) }

    /// The kept cells of (row, slot), counted as a hit; nil (a miss) when not kept.
    private mutating func kept(row: Int32, slot: Int) -> LayoutThumbnail.RankedCells? {
        let key = Self.key(row: row, slot: slot)
        if !keys.isEmpty, keys[place(of: key)] == key {
            hits += 1
            return values[place(of: key)]
        }
        misses += 1
        return nil
    }

    /// Keeps `made` as the cells of (row, slot) (when anything is kept) and returns it.
    private mutating func keep(_ made: LayoutThumbnail.RankedCells, row: Int32, slot: Int) -> LayoutThumbnail.RankedCells {
        guard !keys.isEmpty else { return made }
        let key = Self.key(row: row, slot: slot), index = place(of: key)
        keys[index] = key
        values[index] = made
        return made
    }
}

/// The running-sum tables (`AreaSampler.fillTable`) of the last few thumbnails (or detail
/// layouts: planes of another `side`) whose windows were resampled, least recently used out. A
/// pair's pairings resample several windows of each photo, and a thread's pairs come sorted by
/// their first photo, so most windows are of a thumbnail summed a moment before; summing it
/// (1,024 additions) was about a third of working out a window's ranked cells. A detail layout
/// (4,096 additions) summed each time was 1.7% of a million realistic rows' grouping (perf).
struct ThumbnailTables {
    static let count = 4
    /// The planes' side, and the size of one's table.
    let side: Int
    let size: Int

    init(side: Int = LayoutThumbnail.side) {
        self.side = side
        size = (side + 1) * (side + 1)
    }
    /// Per entry: its row and whether mirrored (`row << 1 | mirrored`, `.max` empty), when it
    /// was last used, and its sums (`size` of them). Allocated at the first table: a cache that
    /// keeps nothing (made for one pair) never sums one here.
    private var keys: [UInt64] = []
    private var uses: [UInt64] = []
    private var sums: [Double] = []
    private var clock: UInt64 = 0
    /// Tables summed (for tests: how often a thumbnail was not kept).
    private(set) var fills = 0

    /// Where `row`'s table (of its mirror image when `mirrored`) lies in the sums, filled from
    /// `thumbnail()` if it is not kept.
    mutating func range(row: Int32, mirrored: Bool, thumbnail: () -> [UInt8]) -> Range<Int> {
        let key = UInt64(UInt32(bitPattern: row)) << 1 | (mirrored ? 1 : 0)
        if keys.isEmpty {
            keys = [UInt64](repeating: .max, count: Self.count)
            uses = [UInt64](repeating: 0, count: Self.count)
            sums = [Double](repeating: 0, count: Self.count * size)
        }
        clock += 1
        if let kept = keys.firstIndex(of: key) {
            uses[kept] = clock
            return kept * size..<(kept + 1) * size
        }
        var entry = 0  // the least recently used (empty entries were never used)
        for index in 1..<Self.count where uses[index] < uses[entry] { entry = index }
        uses[entry] = clock
        let range = entry * size..<(entry + 1) * size
        keys[entry] = key
        fills += 1
        let pixels = thumbnail()
        sums.withUnsafeMutableBufferPointer { sums in
            pixels.withUnsafeBufferPointer { AreaSampler.fillTable(UnsafeMutableBufferPointer(rebasing: sums[range]), of: $0, width: side, height: side) }
        }
        return range
    }

    func withTable<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<Double>) -> Result) -> Result {
        sums.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }
}
