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

    /// The 25 windows of 90% and the 9 of 80% at offsets 0, 10 and 20%: every crop the full 50
    /// reach but one caption (docs/FEATURES.md).
    static let cropWindowsDefault: [Int] = Array(0..<25) + [0, 2, 4].flatMap { row in [0, 2, 4].map { 25 + row * 5 + $0 } }
    /// The four 90% windows in the corners: each leaves out a band of 10% along two sides.
    static let cornerWindows: [Int] = [0, 4, 20, 24]

    /// Every window the plan reads, in order: the only ones grouping needs to hold.
    var windows: [Int] { Array(Set(cropWindows + overlayWindows)).sorted() }
}

/// A pair of photos whose hashes came close, and which parts of them did: slot 0 is the whole
/// frame, slot k the window `FeatureWindow.crops[k - 1]`. Rows are indexes into the input.
struct Candidate: Sendable, Hashable {
    var a: Int32
    var b: Int32
    var slotA: UInt8
    var slotB: UInt8
}

/// The hashes candidate search reads, and nothing else: eight bytes for the frame and eight for
/// each window of the plan, per photo.
struct CompactHashes: Sendable {
    let plan: CandidatePlan
    private(set) var frames: [UInt64] = []
    /// `plan.windows.count` hashes per row, row after row (zeros for a row without windows).
    private(set) var windows: [UInt64] = []
    private(set) var hasWindows: [Bool] = []
    /// The windows held (`plan.windows`, worked out once: a row reads them 38 times).
    let held: [Int]
    /// Where each window of `FeatureWindow.crops` is in a row of `windows` (-1: not held).
    let column: [Int]

    init(plan: CandidatePlan) {
        self.plan = plan
        held = plan.windows
        var column = [Int](repeating: -1, count: FeatureWindow.crops.count)
        for (position, k) in held.enumerated() { column[k] = position }
        self.column = column
    }

    var count: Int { frames.count }

    mutating func reserve(_ rows: Int) {
        frames.reserveCapacity(rows)
        windows.reserveCapacity(rows * held.count)
        hasWindows.reserveCapacity(rows)
    }

    /// Appends a photo; `windows` is all of its `FeatureWindow.crops` hashes, or empty.
    mutating func append(frame: UInt64, windows all: [UInt64]) {
        frames.append(frame)
        let complete = all.count == FeatureWindow.crops.count
        hasWindows.append(complete)
        for k in held { windows.append(complete ? all[k] : 0) }
    }

    func window(_ row: Int, _ k: Int) -> UInt64 { windows[row * held.count + column[k]] }
}

/// Candidate pairs for grouping, by exact multi-index hashing (`MultiIndexHash`):
/// whole frames against one index of whole frames; the plan's crop windows of each photo
/// against the same index (so crops cost no table of their own); and each overlay window
/// against a table of that window. The tables cost 48 bytes per hash at four pieces.
///
/// Runs on `threads` threads of its own (`ParallelChunks`): call it from a blocking queue.
struct CandidateSearch: Sendable {
    let hashes: CompactHashes
    private let frameIndex: MultiIndexHash
    /// Rows with windows, and one table per overlay window over those rows.
    private let windowed: [Int32]
    private let overlayIndexes: [MultiIndexHash]

    init(_ hashes: CompactHashes) {
        self.hashes = hashes
        let pieces = hashes.plan.pieces
        frameIndex = MultiIndexHash(hashes.frames, pieces: pieces)
        let windowed = hashes.hasWindows.indices.filter { hashes.hasWindows[$0] }
        self.windowed = windowed.map { Int32($0) }
        overlayIndexes = hashes.plan.overlayWindows.map { k in MultiIndexHash(windowed.map { hashes.window($0, k) }, pieces: pieces) }
    }

    /// Every candidate pairing within the plan's radii: each whole-frame or overlay pair once
    /// (a < b), each crop pairing once per window that reaches it. `shouldStop` is asked between
    /// chunks of rows; `progress` hears how many rows are done. `rows` limits the rows that
    /// search (benchmarks time a sample), not the rows they find.
    func candidates(threads: Int, rows: [Int]? = nil, shouldStop: @escaping @Sendable () -> Bool = { false },
                    progress: @escaping @Sendable (Int) -> Void = { _ in }) -> [Candidate] {
        let plan = hashes.plan
        let parts = ParallelChunks.run(count: rows?.count ?? hashes.count, threads: threads, shouldStop: shouldStop, progress: progress,
                                       initial: { [Candidate]() }) { chunk, found in
            for position in chunk { self.search(row: rows?[position] ?? position, plan: plan, into: &found) }
        }
        var all: [Candidate] = []
        all.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { all.append(contentsOf: part) }
        return all
    }

    private func search(row a: Int, plan: CandidatePlan, into found: inout [Candidate]) {
        let rowA = Int32(a)
        frameIndex.forEachNeighbour(of: hashes.frames[a], within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { b, _ in
            if b > a { found.append(Candidate(a: rowA, b: Int32(b), slotA: 0, slotB: 0)) }
        }
        guard hashes.hasWindows[a] else { return }
        for k in plan.cropWindows {
            // Another photo's whole frame is this one's window k: that photo is a crop of this one.
            frameIndex.forEachNeighbour(of: hashes.window(a, k), within: plan.cropRadius, pieceRadius: plan.windowPieceRadius) { b, _ in
                if b != a { found.append(Candidate(a: rowA, b: Int32(b), slotA: UInt8(k + 1), slotB: 0)) }
            }
        }
        for (table, k) in zip(overlayIndexes, plan.overlayWindows) {
            // The same window of both: whatever differs lies outside it.
            table.forEachNeighbour(of: hashes.window(a, k), within: plan.overlayRadius, pieceRadius: plan.windowPieceRadius) { w, _ in
                let b = Int(windowed[w])
                if b > a { found.append(Candidate(a: rowA, b: Int32(b), slotA: UInt8(k + 1), slotB: UInt8(k + 1))) }
            }
        }
    }
}
