import Analysis

/// The hashes candidate search reads, and nothing else: eight bytes for the frame, the mirror
/// image, the turned frame, the centre square and each window of the plan, per photo, and the
/// content hashes of bordered photos.
struct CompactHashes: Sendable {
    let plan: CandidatePlan
    private(set) var frames: [UInt64] = []
    /// `plan.windows.count` hashes per row, row after row (zeros where a row lacks a window).
    private(set) var windows: [UInt64] = []
    /// How many window hashes each row has: 0 before pipeline 3, 50 from pipeline 3, 56 from
    /// pipeline 4, 60 (`FeatureWindow.hashedCount`) from pipeline 6. A row has window k when k < this.
    private(set) var windowCounts: [UInt8] = []
    /// Mirror-image pHashes (zero, with `hasMirror` false, for rows before pipeline 4).
    private(set) var mirrors: [UInt64] = []
    private(set) var hasMirror: [Bool] = []
    /// Each row's hashes looked up one way among the frames, `Candidate.oneWaySlots` of them a
    /// row in that order: its turned frame (`TurnedFrame`) and its centre square
    /// (`CentreSquare`). Zero, with its bit clear in `oneWayHeld` (bit k for slot k), where a
    /// row has none (no thumbnail; a frame near square).
    private(set) var oneWay: [UInt64] = []
    private(set) var oneWayHeld: [UInt8] = []
    /// Bordered rows and their content pHashes.
    private(set) var contentRows: [Int32] = []
    private(set) var contents: [UInt64] = []
    /// The windows held (`plan.windows`, worked out once: a row reads them 40 times; or only
    /// the overlay windows, when the crop windows are read a chunk of rows at a time).
    let held: [Int]
    /// Where each window hash (`FeatureWindow.hashedCount`) is in a row of `windows` (-1: not held).
    let column: [Int]

    /// `holdingCropWindows` false: only the overlay windows are held (the tables need every
    /// row's); the search reads the crop windows chunk by chunk (`CropWindowSource`).
    init(plan: CandidatePlan, holdingCropWindows: Bool = true) {
        self.plan = plan
        held = holdingCropWindows ? plan.windows : Self.overlayHeld(plan)
        var column = [Int](repeating: -1, count: FeatureWindow.hashedCount)
        for (position, k) in held.enumerated() { column[k] = position }
        self.column = column
    }

    var count: Int { frames.count }

    mutating func reserve(_ rows: Int) {
        frames.reserveCapacity(rows)
        windows.reserveCapacity(rows * held.count)
        windowCounts.reserveCapacity(rows)
        mirrors.reserveCapacity(rows)
        hasMirror.reserveCapacity(rows)
        oneWay.reserveCapacity(rows * Candidate.oneWaySlots.count)
        oneWayHeld.reserveCapacity(rows)
    }

    /// Appends a photo; `windows` is its window hashes, in order (as many as its worker sent),
    /// or empty.
    mutating func append(frame: UInt64, windows all: [UInt64], mirror: UInt64? = nil, content: UInt64? = nil, turned: UInt64? = nil,
                         square: UInt64? = nil) {
        append(frame: frame, windowCount: all.count, window: { all[$0] }, mirror: mirror, content: content, turned: turned, square: square)
    }

    /// Appends a photo with `windowCount` window hashes, window k's from `window(k)`: for a
    /// reader that decodes the held ones only, from the stored column's bytes.
    mutating func append(frame: UInt64, windowCount: Int, window: (Int) -> UInt64, mirror: UInt64?, content: UInt64?, turned: UInt64?,
                         square: UInt64?) {
        let row = Int32(frames.count)
        frames.append(frame)
        let count = min(windowCount, FeatureWindow.hashedCount)
        windowCounts.append(UInt8(count))
        for k in held { windows.append(k < count ? window(k) : 0) }
        mirrors.append(mirror ?? 0)
        hasMirror.append(mirror != nil)
        oneWay.append(turned ?? 0)
        oneWay.append(square ?? 0)
        oneWayHeld.append((turned == nil ? 0 : 1) | (square == nil ? 0 : 2))
        if let content {
            contentRows.append(row)
            contents.append(content)
        }
    }

    func hasWindow(_ row: Int, _ k: Int) -> Bool { k < Int(windowCounts[row]) }

    /// Row `row`'s one-way hashes the plan looks up (`plan.turns`, `plan.squares`), with their slots.
    func forEachOneWay(row: Int, _ body: (_ hash: UInt64, _ slot: UInt8) -> Void) {
        let held = oneWayHeld[row]
        guard held != 0 else { return }
        if plan.turns, held & 1 != 0 { body(oneWay[row * 2], Candidate.turnedSlot) }
        if plan.squares, held & 2 != 0 { body(oneWay[row * 2 + 1], Candidate.squareSlot) }
    }

    /// Row `row`'s hash for one-way `slot` (one of `Candidate.oneWaySlots`).
    func oneWayHash(_ row: Int, slot: UInt8) -> UInt64 {
        let index = slot == Candidate.turnedSlot ? 0 : 1
        precondition(Candidate.oneWaySlots[index] == slot, "slot \(slot) is no one-way slot")
        return oneWay[row * 2 + index]
    }

    func window(_ row: Int, _ k: Int) -> UInt64 { windows[row * held.count + column[k]] }

    /// The windows `init(plan:holdingCropWindows: false)` holds: the overlay windows.
    static func overlayHeld(_ plan: CandidatePlan) -> [Int] { Array(Set(plan.overlayWindows)).sorted() }

    /// Rows `rows` (ascending) of `source`, for `plan`, whose overlay windows `source` holds:
    /// the search's hashes of a scan's representatives, from those read with all its photos
    /// (`GroupingFeatureSource.takeSearchHashes`). Every row shares `source`'s storage.
    init(rows: [Int], of source: CompactHashes, plan: CandidatePlan) {
        precondition(source.held == Self.overlayHeld(plan), "the source holds the plan's overlay windows")
        self.plan = plan
        held = source.held
        column = source.column
        if rows.count == source.count {  // every row, in order (rows ascend): nothing to copy
            frames = source.frames
            windows = source.windows
            windowCounts = source.windowCounts
            mirrors = source.mirrors
            hasMirror = source.hasMirror
            oneWay = source.oneWay
            oneWayHeld = source.oneWayHeld
            contentRows = source.contentRows
            contents = source.contents
            return
        }
        reserve(rows.count)
        var content = 0  // the next of `source`'s content rows at or after the row being copied
        for row in rows {
            let base = row * held.count
            frames.append(source.frames[row])
            windows.append(contentsOf: source.windows[base..<base + held.count])
            windowCounts.append(source.windowCounts[row])
            mirrors.append(source.mirrors[row])
            hasMirror.append(source.hasMirror[row])
            oneWay.append(contentsOf: source.oneWay[(row * 2)..<(row * 2 + 2)])
            oneWayHeld.append(source.oneWayHeld[row])
            while content < source.contentRows.count && Int(source.contentRows[content]) < row { content += 1 }
            if content < source.contentRows.count && Int(source.contentRows[content]) == row {
                contentRows.append(Int32(frames.count - 1))
                contents.append(source.contents[content])
            }
        }
    }

    /// Appends `other`'s rows after these (the same plan and held windows): the search's hashes
    /// read in parts on grouping's threads, put together in the order of their ids.
    mutating func append(contentsOf other: CompactHashes) {
        precondition(other.held == held, "parts of one read hold the same windows")
        let offset = Int32(frames.count)
        frames += other.frames
        windows += other.windows
        windowCounts += other.windowCounts
        mirrors += other.mirrors
        hasMirror += other.hasMirror
        oneWay += other.oneWay
        oneWayHeld += other.oneWayHeld
        contentRows += other.contentRows.map { $0 + offset }
        contents += other.contents
    }
}
