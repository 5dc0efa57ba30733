import Analysis
import Synchronization

/// A pair of photos whose hashes came close, and which parts of them did: slot 0 is the whole
/// frame, slot k the window hash k - 1 (`FeatureWindow.crops[k - 1]`, or past them a
/// straightened frame), `mirrorSlot` the whole frame's mirror image, `turnedSlot` the whole
/// frame turned a quarter turn clockwise (`TurnedFrame`), `squareSlot` the frame's centre square
/// (`CentreSquare`), `contentSlot` the content inside its borders. Rows are indexes into the input.
struct Candidate: Sendable, Hashable {
    var a: Int32
    var b: Int32
    var slotA: UInt8
    var slotB: UInt8

    static let squareSlot: UInt8 = 252
    static let turnedSlot: UInt8 = 253
    static let mirrorSlot: UInt8 = 254
    static let contentSlot: UInt8 = 255
    /// The slots of hashes another photo's whole frame is looked up against from one end only
    /// (`CompactHashes.oneWay`, in that order): neither undoes itself as a mirror image does.
    static let oneWaySlots: [UInt8] = [turnedSlot, squareSlot]
}

/// Candidate pairs for grouping, by exact multi-index hashing (`MultiIndexHash`):
/// whole frames against one index of whole frames; the plan's crop windows, the mirror image and
/// the content inside borders of each photo against the same index (so they cost no table of
/// their own); each overlay window against a table of that window alone; content against a
/// table of the bordered photos' contents. The tables cost 48 bytes per hash at four pieces.
///
/// The search runs in passes over the rows: the frame index first, then each overlay window's
/// table, built when its pass starts and let go when it ends, so one overlay table is held at a
/// time (`overlayIndex(position:threads:)`).
///
/// Runs on `threads` threads of its own (`ParallelChunks`): call it from a blocking queue.
///
/// The crop windows (60 a photo in the default plan, 44 past about 320,000, `sized(for:)`:
/// most of the search's memory) need not be held: with a `CropWindowSource` each chunk of rows
/// reads its own and lets them go.
struct CandidateSearch: Sendable {
    /// The plan's crop windows (`plan.cropWindows`, in that order) of the rows in a range:
    /// `range.count × plan.cropWindows.count` hashes, row after row; a row without a window has
    /// fewer window hashes and reads as such through `windowCounts`.
    typealias CropWindowSource = @Sendable (Range<Int>) throws -> [UInt64]

    let hashes: CompactHashes
    /// Whether plans with one piece radius are searched a few rows at a time (`BatchedSearch`);
    /// false only in tests, which compare the two.
    var usesBatches = true
    /// Rows whose overlay window goes to its table together (`BatchedSearch.overlayRowsPerBatch`);
    /// benchmarks compare other sizes in one run.
    var overlayRowsPerBatch = BatchedSearch.overlayRowsPerBatch
    /// How many pairings a batch of rows keeps (`PairingBudget`); nil keeps every one (tests
    /// that compare the batches with a scan of every pair).
    var pairingBudget: PairingBudget? = .standard
    let frameIndex: MultiIndexHash
    private let contentIndex: MultiIndexHash

    /// `threads`: how many threads build the tables (`MultiIndexHash`), from a thread that may
    /// block.
    init(_ hashes: CompactHashes, threads: Int = 1) {
        self.hashes = hashes
        frameIndex = MultiIndexHash(hashes.frames, pieces: hashes.plan.pieces, threads: threads)
        precondition(hashes.plan.interleavedCropWindows.allSatisfy(hashes.plan.overlayWindows.contains), "interleaved windows must be overlay windows")
        contentIndex = MultiIndexHash(hashes.contents, pieces: hashes.plan.pieces, threads: threads)
    }

    /// The table of the overlay window at `position` in `plan.overlayWindows`: that window of
    /// every row that has it, numbered by row. One table per window, not one for all of them:
    /// a shared table (its six windows' keys salted apart, to spare five sets of offsets) put
    /// six times the hashes in every bucket, and a query scanned them all to keep its own
    /// window's; at a million rows its overlay queries, 6 of a row's 48 (52 from pipeline 6),
    /// cost more than the other 42 (perf, bench/grouping.sh grouper: 17.9% of all samples
    /// against 13.5%). Built
    /// when its pass starts and let go after, a table at a time holds a sixth of the shared
    /// one's hashes. Pieces as for the frames: the same radius covers the same share of pairs.
    func overlayIndex(position: Int, threads: Int = 1) -> MultiIndexHash {
        let k = hashes.plan.overlayWindows[position]
        var windows: [UInt64] = [], rows: [Int32] = []
        windows.reserveCapacity(hashes.count)
        rows.reserveCapacity(hashes.count)
        for row in 0..<hashes.count where hashes.hasWindow(row, k) {
            windows.append(hashes.window(row, k))
            rows.append(Int32(row))
        }
        return MultiIndexHash(windows, ids: rows, pieces: hashes.plan.pieces ?? MultiIndexHash.pieceCount(for: hashes.count), threads: threads)
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
        var parts = try candidateParts(threads: threads, rows: rows, cropWindows: cropWindows, shouldStop: shouldStop, progress: progress)
        // Merged into one array of exactly the size needed, each part let go once copied: at a
        // million photos the parts and the merged array are 55 MB each, and growing the merged
        // array for the content candidates doubled it (measured: the search's peak RSS).
        var all: [Candidate] = []
        all.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for index in parts.indices {
            all.append(contentsOf: parts[index])
            parts[index] = []
        }
        return all
    }

    /// The same candidates in the parts the search's threads found them in (each part in no
    /// particular order): grouping packs them for sorting part by part (`CandidateSort`)
    /// rather than merge them first.
    func candidateParts(threads: Int, rows: [Int]? = nil, cropWindows: CropWindowSource?, shouldStop: @escaping @Sendable () -> Bool = { false },
                        progress: @escaping @Sendable (Int) -> Void = { _ in }) throws -> [[Candidate]] {
        // Rows of a chunk are consecutive unless a sample of rows is searched.
        precondition(cropWindows == nil || rows == nil, "a crop window source reads consecutive rows")
        let plan = hashes.plan
        let failure = Mutex<(any Error)?>(nil)
        let stop: @Sendable () -> Bool = { shouldStop() || failure.withLock { $0 != nil } }
        let searched = rows?.count ?? hashes.count
        // The corner windows' other cuts, probed at the windows' piece radius (an exact plan has none).
        let interleaving = plan.interleavedCropWindows.isEmpty ? nil : plan.windowPieceRadius.map { (pieceRadius: $0, cuts: plan.interleavedCuts) }
        let passes = PassProgress(rows: searched, passes: 1 + (interleaving?.cuts.count ?? 0) + plan.overlayWindows.count, report: progress)
        let batched = BatchedSearch(self)
        let probed = plan.probedCropWindows  // made once, not once a row
        // Pass 1: frames, mirror images and crop windows against the frame index.
        var parts = ParallelChunks.run(count: searched, threads: threads, chunk: BatchedSearch.rowsPerBatch,
                                       shouldStop: stop, progress: passes.advance, initial: { [Candidate]() }) { chunk, found in
            var block: [UInt64]?
            if let cropWindows {
                do { block = try cropWindows(chunk) } catch {
                    failure.withLock { $0 = $0 ?? error }
                    return
                }
            }
            if let batched {
                batched.searchFrames(rows: chunk.map { rows?[$0] ?? $0 }, crops: block, into: &found)
            } else {
                for position in chunk {
                    let row = rows?[position] ?? position
                    let offset = (position - chunk.lowerBound) * probed.count
                    self.searchFrames(row: row, plan: plan, probed: probed, crops: block?[offset..<(offset + probed.count)], into: &found)
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        // Then the corner windows against the frames cut into other pieces, cut by cut.
        if let (pieceRadius, cuts) = interleaving {
            for cut in cuts where !stop() {
                let index = interleavedIndex(cut, threads: threads)
                parts += ParallelChunks.run(count: searched, threads: threads, chunk: overlayRowsPerBatch,
                                            shouldStop: stop, progress: passes.advance, initial: { [Candidate]() }) { chunk, found in
                    if let batched {
                        batched.searchInterleaved(index, rows: chunk.map { rows?[$0] ?? $0 }, into: &found)
                    } else {
                        for place in chunk { self.searchInterleaved(index, row: rows?[place] ?? place, pieceRadius: pieceRadius, into: &found) }
                    }
                }
            }
        }
        // Then each overlay window against its own table.
        for position in plan.overlayWindows.indices where !stop() {
            let index = overlayIndex(position: position, threads: threads)
            parts += ParallelChunks.run(count: searched, threads: threads, chunk: overlayRowsPerBatch,
                                        shouldStop: stop, progress: passes.advance, initial: { [Candidate]() }) { chunk, found in
                if let batched {
                    batched.searchOverlay(position, index: index, rows: chunk.map { rows?[$0] ?? $0 }, into: &found)
                } else {
                    for place in chunk { self.searchOverlay(position, index: index, row: rows?[place] ?? place, into: &found) }
                }
            }
        }
        parts.append(contentCandidates(plan: plan))
        return parts
    }

    /// One row against the frame index, query by query: for plans that search the tables exactly
    /// (`BatchedSearch` needs one piece radius for every query). `crops`: the row's crop
    /// windows in `probed` (`plan.probedCropWindows`) order, when they are not held.
    private func searchFrames(row a: Int, plan: CandidatePlan, probed: [Int], crops: ArraySlice<UInt64>?, into found: inout [Candidate]) {
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
        hashes.forEachOneWay(row: a) { hash, slot in
            // Another photo's frame is this one turned clockwise (a turn does not undo itself:
            // the other photo's turned frame is this one's half turn, which nothing looks up),
            // or this one's centre square (that photo is a square crop of this one).
            frameIndex.forEachNeighbour(of: hash, within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { b, _ in
                if b != a { found.append(Candidate(a: rowA, b: Int32(b), slotA: slot, slotB: 0)) }
            }
        }
        for (position, k) in probed.enumerated() where hashes.hasWindow(a, k) {
            // Another photo's whole frame is this one's window k: that photo is a crop of this one.
            let window = crops.map { $0[$0.startIndex + position] } ?? hashes.window(a, k)
            let pieceRadius = position < plan.cropWindows.count ? plan.windowPieceRadius : 0
            frameIndex.forEachNeighbour(of: window, within: plan.cropRadius(ofWindow: k), pieceRadius: pieceRadius) { b, _ in
                if b != a { found.append(Candidate(a: rowA, b: Int32(b), slotA: UInt8(k + 1), slotB: 0)) }
            }
        }
    }

    /// One row's overlay window at `position` of the plan against that window's table
    /// (`overlayIndex(position:threads:)`), query by query.
    private func searchOverlay(_ position: Int, index: MultiIndexHash, row a: Int, into found: inout [Candidate]) {
        let plan = hashes.plan, k = plan.overlayWindows[position]
        guard hashes.hasWindow(a, k) else { return }
        // The same window of both: whatever differs lies outside it.
        index.forEachNeighbour(of: hashes.window(a, k), within: plan.overlayRadius, pieceRadius: plan.windowPieceRadius) { b, _ in
            if b > a { found.append(Candidate(a: Int32(a), b: Int32(b), slotA: UInt8(k + 1), slotB: UInt8(k + 1))) }
        }
    }

    /// Bordered photos: the content of one against every whole frame (the other is the
    /// original, or a copy without borders) and against the others' contents (two bordered
    /// copies). Few photos have borders: this runs on the calling thread. Bordered look-alikes
    /// (screenshots in one app's frame, graphics on one mat) pair with every other as frames
    /// do, so each batch of `BatchedSearch.rowsPerBatch` bordered rows keeps its closest
    /// pairings within the frames' budget (`PairingBudget.framesLimit`).
    private func contentCandidates(plan: CandidatePlan) -> [Candidate] {
        guard plan.contents else { return [] }
        var found: [Candidate] = [], distances: [UInt8] = []
        let batch = BatchedSearch.rowsPerBatch
        for first in stride(from: 0, to: hashes.contentRows.count, by: batch) {
            let positions = first..<min(hashes.contentRows.count, first + batch), start = found.count
            distances.removeAll(keepingCapacity: true)
            for position in positions {
                let row = hashes.contentRows[position], hash = hashes.contents[position]
                frameIndex.forEachNeighbour(of: hash, within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { b, distance in
                    guard b != Int(row) else { return }
                    found.append(Candidate(a: row, b: Int32(b), slotA: Candidate.contentSlot, slotB: 0))
                    distances.append(UInt8(distance))
                }
                contentIndex.forEachNeighbour(of: hash, within: plan.frameRadius, pieceRadius: plan.framePieceRadius) { other, distance in
                    guard other > position else { return }
                    found.append(Candidate(a: row, b: hashes.contentRows[other], slotA: Candidate.contentSlot, slotB: Candidate.contentSlot))
                    distances.append(UInt8(distance))
                }
            }
            if let limit = pairingBudget?.framesLimit(rows: positions.count, of: hashes.count), found.count - start > limit {
                BatchedSearch.keepClosest(&found, from: start, distances: distances, limit: limit)
            }
        }
        return found
    }
}

/// Progress of a search in passes, told in rows: a row counts as done once every pass has
/// searched it, so the count rises through all the passes and ends at the rows searched.
private final class PassProgress: Sendable {
    private let rows: Int, passes: Int
    private let report: @Sendable (Int) -> Void
    /// Rows searched summed over the passes, and the rows reported so far.
    private let done = Mutex((searched: 0, reported: 0))

    init(rows: Int, passes: Int, report: @escaping @Sendable (Int) -> Void) {
        self.rows = rows
        self.passes = max(1, passes)
        self.report = report
    }

    var advance: @Sendable (Int) -> Void {
        { [self] count in
            let more = done.withLock { done -> Int in
                done.searched += count
                let rowsDone = min(rows, done.searched / passes)
                defer { done.reported = rowsDone }
                return rowsDone - done.reported
            }
            if more > 0 { report(more) }
        }
    }
}
