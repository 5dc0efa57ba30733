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
    /// Windows (indexes into a row's window hashes: `FeatureWindow.crops`, then the straightened
    /// frames) of one photo looked up among the whole frames of the others: a hit means the
    /// other photo is a crop (or a straightened crop) of this one.
    var cropWindows: [Int] = Self.cropWindowsDefault
    /// 10 bits, as for whole frames (8 until the forty-fourth session): a crop that keeps
    /// another share of each side than any window (85% of the width and 90% of the height, a
    /// free crop) lies 8–10 bits from its nearest window more often than not. Of 2,820 crops
    /// drawn anywhere from the corpora's 94 originals (bench/free-crop-recall.py, the geometry
    /// alone), 0.867 of the free ones came within 8 bits of a window, **0.956** within 10 (aspect
    /// locked: 0.938, 0.977), while distinct originals came no closer to each other's windows
    /// (27 of 8,742 ordered pairs within 8 bits, the same 27 within 10). `cull run` on the free
    /// crops: recall 0.812 → 0.854, precision 0.988 → 0.989; the hard set's crops of two sides
    /// all found (recall 0.984 → 1.000). pHash distances are even, so 9 is 8.
    /// Large libraries keep 8 but in their corner windows (`narrowCropRadius`).
    var cropRadius = 10
    /// Where set (`sized(for:)`, past about 320,000 photos: `cropRadiusLargeLibraries`), the
    /// crop radius of every crop window but the `interleavedCropWindows`, which keep
    /// `cropRadius`: those are probed in two cuts of the frames, so a hash 9–10 bits off has
    /// two chances to agree on a whole piece there.
    var narrowCropRadius: Int? = nil

    /// The radius crop window `k` is searched at among the whole frames.
    func cropRadius(ofWindow k: Int) -> Int {
        guard let narrowCropRadius, !interleavedCropWindows.contains(k) else { return cropRadius }
        return narrowCropRadius
    }
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
    /// Crop windows probed at piece radius 0 only (a hit agrees exactly on one whole piece):
    /// three probes a window at 3 pieces instead of 66. Past about 320,000 photos (`sized(for:)`)
    /// the 16 80% windows the plan does not probe at `windowPieceRadius`; of the crops drawn
    /// anywhere that a million photos' tables lost past the probes, 32 of 164 come within reach
    /// through them so (bench/RESULTS.md, "Where free crops are lost in large libraries").
    var cheapCropWindows: [Int] = []
    /// Crop windows also probed, at `windowPieceRadius`, in a second table of the frames cut
    /// into other pieces (`InterleavedBits`, `CandidateSearch+Interleaved`): set by
    /// `sized(for:)` where the tables have 3 pieces, for the four 90% windows in the corners,
    /// where a crop of two sides lands. Each must be one of `overlayWindows`, which the
    /// search's hashes always hold.
    var interleavedCropWindows: [Int] = []

    /// Every crop window workers hash: the 25 of 90% and the 25 of 80% (`FeatureWindow.crops`),
    /// the six bands of pipeline 4 (crops of one side, or to another aspect ratio) and
    /// pipeline 6's four straightened frames. Until the thirty-third session only 9 of the 80%
    /// windows were probed, at offsets 0, 10 and 20%, where all the corpora's crops lie; of
    /// crops drawn anywhere (bench/free-crop-recall.py, 2,820 crops of the three corpora's
    /// originals), those keeping 80–85% and 75–80% of a side came within the crop radius of a
    /// probed window 0.62 and 0.38 of the time with the aspect locked, 0.91 and 0.84 with all
    /// 25 (docs/FEATURES.md, "Candidate search").
    static let cropWindowsDefault: [Int] = Array(0..<50) + FeatureWindow.bandWindows + FeatureWindow.straightenedWindows
    /// The crop windows probed in libraries whose tables have 3 pieces (`sized(for:)`): the 25
    /// of 90%, the 9 of 80% at offsets 0, 10 and 20%, the bands and the straightened frames.
    static let cropWindowsLargeLibraries: [Int] = Array(0..<25) + [0, 2, 4].flatMap { row in [0, 2, 4].map { 25 + row * 5 + $0 } }
        + FeatureWindow.bandWindows + FeatureWindow.straightenedWindows

    /// The plan for a search over `rows` photos: where the tables have 3 pieces (past about
    /// 320,000 photos, `MultiIndexHash.pieceCount`) the default plan probes 34 of the 50 crop
    /// windows (44 windows with the bands and straightened frames, not 60). There the 16
    /// others cost a million realistic rows 5 s of search and 3 s of judging (50.9 → 58.9 s,
    /// past the minute's margin), and 3-piece tables probed at radius 1 find hashes exactly to
    /// 5 bits only, where those windows add less (locked 80–85% crops within 5 bits: 0.18 →
    /// 0.38, against 0.62 → 0.91 within 8). They are probed at piece radius 0 instead
    /// (`cheapCropWindows`): free crops at a million photos' tables 0.660 → 0.711 recall, no
    /// cost the million rows' noise shows (bench/RESULTS.md). What they cost in look-alike
    /// pairings is bounded by the `PairingBudget`. The crop radius there is
    /// `cropRadiusLargeLibraries`. A plan of other crop windows, or of pieces chosen by the
    /// caller, is kept.
    func sized(for rows: Int) -> CandidatePlan {
        guard cropWindows == Self.cropWindowsDefault, pieces == nil, MultiIndexHash.pieceCount(for: rows) < 4 else { return self }
        var plan = self
        plan.cropWindows = Self.cropWindowsLargeLibraries
        plan.cheapCropWindows = Self.cropWindowsDefault.filter { !Self.cropWindowsLargeLibraries.contains($0) }
        plan.interleavedCropWindows = Self.cornerCropWindows
        plan.narrowCropRadius = min(plan.cropRadius, Self.cropRadiusLargeLibraries)
        return plan
    }

    /// The crop radius of libraries whose tables have 3 pieces (`sized(for:)`, as
    /// `narrowCropRadius`: all but the corner windows). There a probe finds hashes exactly to 5
    /// bits only, so a crop 9–10 bits from its window is found by chance, while the look-alikes
    /// those bits let through must all be judged: a million realistic rows took 57.85 s at 10 in
    /// every window (judging 26.1 → 34.0 s), past the minute's margin, for 34 more of 34,170
    /// families; at 10 in the four corners alone, 33 more (33,934 → 33,967) in 52.59 / 53.92 s
    /// against 50.99 / 53.29 s (bench/RESULTS.md, "Crop radius 10").
    static let cropRadiusLargeLibraries = 8

    /// The four 90% windows in the corners (each leaves out a band of 10% along two sides), and
    /// the bands without the top or the bottom 20% (a caption band across one end).
    static let cornerWindows: [Int] = cornerCropWindows + FeatureWindow.captionWindows
    /// The four 90% windows in the corners.
    static let cornerCropWindows: [Int] = [0, 4, 20, 24]
    /// Whether mirror images and bordered copies are looked for (pipeline 4's mirror pHash and
    /// content box), at `frameRadius`.
    var mirrors = true
    var contents = true

    /// Every window the plan reads, in order: the only ones grouping needs to hold.
    var windows: [Int] { Array(Set(probedCropWindows + overlayWindows)).sorted() }

    /// Every crop window a search looks up among the frames: `cropWindows`, then
    /// `cheapCropWindows`. A row's streamed crop windows come in this order.
    var probedCropWindows: [Int] { cropWindows + cheapCropWindows }
}

/// A pair of photos whose hashes came close, and which parts of them did: slot 0 is the whole
/// frame, slot k the window hash k - 1 (`FeatureWindow.crops[k - 1]`, or past them a
/// straightened frame), `mirrorSlot` the whole frame's mirror image, `contentSlot` the content
/// inside its borders. Rows are indexes into the input.
struct Candidate: Sendable, Hashable {
    var a: Int32
    var b: Int32
    var slotA: UInt8
    var slotB: UInt8

    static let mirrorSlot: UInt8 = 254
    static let contentSlot: UInt8 = 255
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
        let interleaves = !plan.interleavedCropWindows.isEmpty && plan.windowPieceRadius != nil
        let passes = PassProgress(rows: searched, passes: 1 + (interleaves ? 1 : 0) + plan.overlayWindows.count, report: progress)
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
        // Then the corner windows against the frames cut into other pieces.
        if interleaves, let pieceRadius = plan.windowPieceRadius, !stop() {
            let index = interleavedIndex(threads: threads)
            parts += ParallelChunks.run(count: searched, threads: threads, chunk: overlayRowsPerBatch,
                                        shouldStop: stop, progress: passes.advance, initial: { [Candidate]() }) { chunk, found in
                if let batched {
                    batched.searchInterleaved(index, rows: chunk.map { rows?[$0] ?? $0 }, into: &found)
                } else {
                    for place in chunk { self.searchInterleaved(index, row: rows?[place] ?? place, pieceRadius: pieceRadius, into: &found) }
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
