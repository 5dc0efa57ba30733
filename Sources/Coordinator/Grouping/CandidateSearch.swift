import Analysis
import Synchronization

/// Which hashes candidate search compares, and how far apart they may be.
///
/// The defaults, and the measurements they come from (which windows a crop or an overlay needs
/// on really analysed photos, bench/window-recall.py; what each costs at a million photos,
/// bench/grouping.sh), are in docs/FEATURES.md, "Candidate search".
struct CandidatePlan: Sendable, Equatable {
    /// Whole frame to whole frame.
    var frameRadius = 10
    /// Windows (indexes into `FeatureWindow.crops`) of one photo looked up among the whole frames
    /// of the others: a hit means the other photo is a crop of this one.
    var cropWindows: [Int] = Self.cropWindowsDefault
    var cropRadius = 8
    /// Windows compared with the same window of the others: an overlay outside the window.
    var overlayWindows: [Int] = Self.cornerWindows
    var overlayRadius = 8
    /// Pieces of every table (`MultiIndexHash`); nil: chosen for the library size.
    var pieces: Int? = nil
    /// How frame (`framePieceRadius`) and window searches probe the tables: nil finds every
    /// hash within the radius (exact; about 190 probes a query at 8 bits and 4 pieces); k finds
    /// those that also agree within k bits on one whole piece: 17·m probes at k = 1, exact up
    /// to 2m − 1 bits.
    var framePieceRadius: Int? = 1
    var windowPieceRadius: Int? = 1

    /// The 25 windows of 90%, the 9 of 80% at offsets 0, 10 and 20% (every crop the full 50
    /// reach but one caption, docs/FEATURES.md), and the six bands of pipeline 4 (crops of one
    /// side, or to another aspect ratio).
    static let cropWindowsDefault: [Int] = Array(0..<25) + [0, 2, 4].flatMap { row in [0, 2, 4].map { 25 + row * 5 + $0 } }
        + FeatureWindow.bandWindows
    /// The four 90% windows in the corners (each leaves out a band of 10% along two sides), and
    /// the bands without the top or the bottom 20% (a caption band across one end).
    static let cornerWindows: [Int] = [0, 4, 20, 24] + FeatureWindow.captionWindows
    /// Whether mirror images and bordered copies are looked for (pipeline 4's mirror pHash and
    /// content box), at `frameRadius`.
    var mirrors = true
    var contents = true

    /// Every window the plan reads, in order: the only ones grouping needs to hold.
    var windows: [Int] { Array(Set(cropWindows + overlayWindows)).sorted() }
}

/// A pair of photos whose hashes came close, and which parts of them did: slot 0 is the whole
/// frame, slot k the window `FeatureWindow.crops[k - 1]`, `mirrorSlot` the whole frame's mirror
/// image, `contentSlot` the content inside its borders. Rows are indexes into the input.
struct Candidate: Sendable, Hashable {
    var a: Int32
    var b: Int32
    var slotA: UInt8
    var slotB: UInt8

    static let mirrorSlot: UInt8 = 254
    static let contentSlot: UInt8 = 255
}

/// The hashes candidate search reads, and nothing else: eight bytes for the frame, the mirror
/// image and each window of the plan, per photo, and the content hashes of bordered photos.
struct CompactHashes: Sendable {
    let plan: CandidatePlan
    private(set) var frames: [UInt64] = []
    /// `plan.windows.count` hashes per row, row after row (zeros where a row lacks a window).
    private(set) var windows: [UInt64] = []
    /// How many of `FeatureWindow.crops` each row has: 0 before pipeline 3, 50 from pipeline 3,
    /// all from pipeline 4. A row has window k when k < this.
    private(set) var windowCounts: [UInt8] = []
    /// Mirror-image pHashes (zero, with `hasMirror` false, for rows before pipeline 4).
    private(set) var mirrors: [UInt64] = []
    private(set) var hasMirror: [Bool] = []
    /// Bordered rows and their content pHashes.
    private(set) var contentRows: [Int32] = []
    private(set) var contents: [UInt64] = []
    /// The windows held (`plan.windows`, worked out once: a row reads them 40 times; or only
    /// the overlay windows, when the crop windows are read a chunk of rows at a time).
    let held: [Int]
    /// Where each window of `FeatureWindow.crops` is in a row of `windows` (-1: not held).
    let column: [Int]

    /// `holdingCropWindows` false: only the overlay windows are held (the tables need every
    /// row's); the search reads the crop windows chunk by chunk (`CropWindowSource`).
    init(plan: CandidatePlan, holdingCropWindows: Bool = true) {
        self.plan = plan
        held = holdingCropWindows ? plan.windows : Array(Set(plan.overlayWindows)).sorted()
        var column = [Int](repeating: -1, count: FeatureWindow.crops.count)
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
    }

    /// Appends a photo; `windows` is its `FeatureWindow.crops` hashes, in order (as many as its
    /// worker sent), or empty.
    mutating func append(frame: UInt64, windows all: [UInt64], mirror: UInt64? = nil, content: UInt64? = nil) {
        let row = Int32(frames.count)
        frames.append(frame)
        let count = min(all.count, FeatureWindow.crops.count)
        windowCounts.append(UInt8(count))
        for k in held { windows.append(k < count ? all[k] : 0) }
        mirrors.append(mirror ?? 0)
        hasMirror.append(mirror != nil)
        if let content {
            contentRows.append(row)
            contents.append(content)
        }
    }

    func hasWindow(_ row: Int, _ k: Int) -> Bool { k < Int(windowCounts[row]) }
    func window(_ row: Int, _ k: Int) -> UInt64 { windows[row * held.count + column[k]] }
}

/// Candidate pairs for grouping, by exact multi-index hashing (`MultiIndexHash`):
/// whole frames against one index of whole frames; the plan's crop windows, the mirror image and
/// the content inside borders of each photo against the same index (so they cost no table of
/// their own); each overlay window against a table of that window; content against a table of
/// the bordered photos' contents. The tables cost 48 bytes per hash at four pieces.
///
/// Runs on `threads` threads of its own (`ParallelChunks`): call it from a blocking queue.
///
/// The crop windows (40 a photo in the default plan: most of the search's memory) need not be
/// held: with a `CropWindowSource` each chunk of rows reads its own and lets them go.
struct CandidateSearch: Sendable {
    /// The plan's crop windows (`plan.cropWindows`, in that order) of the rows in a range:
    /// `range.count × plan.cropWindows.count` hashes, row after row; a row without a window has
    /// `FeatureWindow.crops.count` or fewer windows and reads as such through `windowCounts`.
    typealias CropWindowSource = @Sendable (Range<Int>) throws -> [UInt64]

    let hashes: CompactHashes
    /// Whether plans with one piece radius are searched a few rows at a time (`BatchedSearch`);
    /// false only in tests, which compare the two.
    var usesBatches = true
    let frameIndex: MultiIndexHash
    /// Every overlay window of every row in one table (numbered row · `overlayPositions` + the
    /// window's position in `plan.overlayWindows`), each window's hashes keyed under a salt of its own: one set of
    /// offsets instead of six (about 250 MiB less at a million photos), and the windows of one
    /// photo, which are alike, do not crowd the same buckets.
    let overlayIndex: MultiIndexHash
    private let contentIndex: MultiIndexHash

    /// Overlay entries are numbered row · `overlayPositions` + the window's position in the plan.
    static let overlayPositions = 16
    /// Key salts of the overlay windows, by position in `plan.overlayWindows`: any fixed values
    /// whose pieces differ (SplitMix64's sequence from a fixed seed; the first window unsalted).
    static let overlaySalts: [UInt64] = {
        var random = SplitMix64(seed: 0x0C0F_FEE5)
        return (0..<overlayPositions).map { $0 == 0 ? 0 : random.next() }
    }()

    init(_ hashes: CompactHashes) {
        self.hashes = hashes
        let plan = hashes.plan
        precondition(plan.overlayWindows.count <= Self.overlayPositions, "at most \(Self.overlayPositions) overlay windows")
        precondition(hashes.count < Int(Int32.max) / Self.overlayPositions, "too many photos for one search")
        frameIndex = MultiIndexHash(hashes.frames, pieces: plan.pieces)
        var overlayHashes: [UInt64] = [], overlayIDs: [Int32] = [], overlayKeySalts: [UInt64] = []
        for row in 0..<hashes.count {
            for (position, k) in plan.overlayWindows.enumerated() where hashes.hasWindow(row, k) {
                overlayHashes.append(hashes.window(row, k))
                overlayIDs.append(Int32(row * Self.overlayPositions + position))
                overlayKeySalts.append(Self.overlaySalts[position])
            }
        }
        // Pieces as for the rows, not for the entries: the same radius covers the same share of
        // pairs as the frames' table (more entries per bucket cost only a few more comparisons).
        overlayIndex = MultiIndexHash(overlayHashes, ids: overlayIDs, keySalts: overlayKeySalts,
                                      pieces: plan.pieces ?? MultiIndexHash.pieceCount(for: hashes.count))
        contentIndex = MultiIndexHash(hashes.contents, pieces: plan.pieces)
    }

    /// Every candidate pairing within the plan's radii: each whole-frame, mirror, overlay or
    /// content pair once (a < b, or found from its other end), each crop pairing once per window
    /// that reaches it. `shouldStop` is asked between chunks of rows; `progress` hears how many
    /// rows are done. `rows` limits the rows that search (benchmarks time a sample), not the
    /// rows they find.
    func candidates(threads: Int, rows: [Int]? = nil, shouldStop: @escaping @Sendable () -> Bool = { false },
                    progress: @escaping @Sendable (Int) -> Void = { _ in }) -> [Candidate] {
        // Without a source nothing can fail.
        (try? candidates(threads: threads, rows: rows, cropWindows: nil, shouldStop: shouldStop, progress: progress)) ?? []
    }

    /// The same, reading the crop windows through `cropWindows` a chunk of rows at a time (the
    /// hashes then hold only the overlay windows); throws what the source throws.
    func candidates(threads: Int, rows: [Int]? = nil, cropWindows: CropWindowSource?, shouldStop: @escaping @Sendable () -> Bool = { false },
                    progress: @escaping @Sendable (Int) -> Void = { _ in }) throws -> [Candidate] {
        // Rows of a chunk are consecutive unless a sample of rows is searched.
        precondition(cropWindows == nil || rows == nil, "a crop window source reads consecutive rows")
        let plan = hashes.plan
        let failure = Mutex<(any Error)?>(nil)
        let stop: @Sendable () -> Bool = { shouldStop() || failure.withLock { $0 != nil } }
        var parts = ParallelChunks.run(count: rows?.count ?? hashes.count, threads: threads, chunk: BatchedSearch.rowsPerBatch,
                                       shouldStop: stop, progress: progress, initial: { [Candidate]() }) { chunk, found in
            var block: [UInt64]?
            if let cropWindows {
                do { block = try cropWindows(chunk) } catch {
                    failure.withLock { $0 = $0 ?? error }
                    return
                }
            }
            if let batched = BatchedSearch(self) {
                batched.search(rows: chunk.map { rows?[$0] ?? $0 }, crops: block, into: &found)
            } else {
                for position in chunk {
                    let row = rows?[position] ?? position
                    let offset = (position - chunk.lowerBound) * plan.cropWindows.count
                    self.search(row: row, plan: plan, crops: block?[offset..<(offset + plan.cropWindows.count)], into: &found)
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        // Merged into one array of exactly the size needed, each part let go once copied: at a
        // million photos the parts and the merged array are 55 MB each, and growing the merged
        // array for the content candidates doubled it (measured: the search's peak RSS).
        let contents = contentCandidates(plan: plan)
        var all: [Candidate] = []
        all.reserveCapacity(parts.reduce(contents.count) { $0 + $1.count })
        for index in parts.indices {
            all.append(contentsOf: parts[index])
            parts[index] = []
        }
        all.append(contentsOf: contents)
        return all
    }

    /// One row, query by query: for plans that search the tables exactly (`BatchedSearch` needs
    /// one piece radius for every query). `crops`: the row's crop windows in `plan.cropWindows`
    /// order, when they are not held.
    private func search(row a: Int, plan: CandidatePlan, crops: ArraySlice<UInt64>?, into found: inout [Candidate]) {
        let rowA = Int32(a)
        frameIndex.forEachNeighbour(of: hashes.frames[a], within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { b, _ in
            if b > a { found.append(Candidate(a: rowA, b: Int32(b), slotA: 0, slotB: 0)) }
        }
        if plan.mirrors, hashes.hasMirror[a] {
            // Another photo's frame is this one's mirror image. Mirroring undoes itself, so the
            // pair is found from both ends: kept from the smaller, or from the only end that can.
            frameIndex.forEachNeighbour(of: hashes.mirrors[a], within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { b, _ in
                if b != a, b > a || !hashes.hasMirror[b] { found.append(Candidate(a: rowA, b: Int32(b), slotA: Candidate.mirrorSlot, slotB: 0)) }
            }
        }
        for (position, k) in plan.cropWindows.enumerated() where hashes.hasWindow(a, k) {
            // Another photo's whole frame is this one's window k: that photo is a crop of this one.
            let window = crops.map { $0[$0.startIndex + position] } ?? hashes.window(a, k)
            frameIndex.forEachNeighbour(of: window, within: plan.cropRadius, pieceRadius: plan.windowPieceRadius) { b, _ in
                if b != a { found.append(Candidate(a: rowA, b: Int32(b), slotA: UInt8(k + 1), slotB: 0)) }
            }
        }
        for (position, k) in plan.overlayWindows.enumerated() where hashes.hasWindow(a, k) {
            // The same window of both: whatever differs lies outside it.
            overlayIndex.forEachNeighbour(of: hashes.window(a, k), within: plan.overlayRadius, pieceRadius: plan.windowPieceRadius,
                                          salt: Self.overlaySalts[position]) { entry, _ in
                let b = entry / Self.overlayPositions
                if entry % Self.overlayPositions == position, b > a { found.append(Candidate(a: rowA, b: Int32(b), slotA: UInt8(k + 1), slotB: UInt8(k + 1))) }
            }
        }
    }

    /// Bordered photos: the content of one against every whole frame (the other is the
    /// original, or a copy without borders) and against the others' contents (two bordered
    /// copies). Few photos have borders: this runs on the calling thread.
    private func contentCandidates(plan: CandidatePlan) -> [Candidate] {
        guard plan.contents else { return [] }
        var found: [Candidate] = []
        for (position, row) in hashes.contentRows.enumerated() {
            let hash = hashes.contents[position]
            frameIndex.forEachNeighbour(of: hash, within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { b, _ in
                if b != Int(row) { found.append(Candidate(a: row, b: Int32(b), slotA: Candidate.contentSlot, slotB: 0)) }
            }
            contentIndex.forEachNeighbour(of: hash, within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { other, _ in
                if other > position {
                    found.append(Candidate(a: row, b: hashes.contentRows[other], slotA: Candidate.contentSlot, slotB: Candidate.contentSlot))
                }
            }
        }
        return found
    }
}
