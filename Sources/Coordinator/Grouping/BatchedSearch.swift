import Analysis

/// `CandidateSearch` for plans that probe every table at one piece radius (the default plan):
/// thousands of rows at a time, all their queries to a table in one batched call
/// (`MultiIndexHash.forEachNeighbour(ofBatch:)`), which sorts them by key so that the probes
/// sweep the tables in order, and overlaps their trips to memory. It finds exactly the
/// pairings the query-by-query search finds, in another order.
///
/// Measured at a million realistic rows (bench/grouping.sh, docs/FEATURES.md "Candidate
/// search"): the query-by-query search spent most of its time waiting on memory.
struct BatchedSearch {
    private let base: CandidateSearch
    private let pieceRadius: Int

    /// Rows whose queries go to the tables together: 4,096 rows of the default plan are about
    /// 150,000 queries, so that a mask's probes, in key order, fall a few to a page of the
    /// tables (4 MiB of queries and their order). `CandidateSearch` hands out chunks of this
    /// many rows.
    static let rowsPerBatch = 4096
    /// Rows whose overlay window goes to its table together: one query a row, so 131,072 rows
    /// make about as many queries as a frame batch (`rowsPerBatch`), and their probes are as
    /// dense in the table. Batches of 24,576 rows (until the twenty-eighth session) probed a
    /// table five times more sparsely, and an overlay query cost 2.7 times a frame batch's: at a
    /// million realistic rows the whole search took 15.21 / 15.84 / 16.85 s with them against
    /// 14.21 / 13.99 / 14.84 s, in turn in one run (`CULL_BENCH_PLANS=overlay-batches
    /// bench/grouping.sh candidates 1000000`), the same 4,800,052 pairs. A million rows are
    /// eight such chunks, four for each of two threads.
    static let overlayRowsPerBatch = 32 * rowsPerBatch

    /// What one query of a batch asks: for which row, and through which slot of it.
    private struct Query {
        var row: Int32
        var slot: UInt8
    }

    /// nil when the plan probes frames and windows at different piece radii, or searches
    /// exactly (no piece radius): those go query by query.
    init?(_ search: CandidateSearch) {
        let plan = search.hashes.plan
        guard search.usesBatches, let frames = plan.framePieceRadius, let windows = plan.windowPieceRadius, frames == windows,
              (0...MultiIndexHash.precomputedRadius).contains(frames) else { return nil }
        base = search
        pieceRadius = frames
    }

    /// Every pairing of `rows` with the whole frames: their frames, mirror images and crop
    /// windows (not the overlay windows, `searchOverlay`, nor the content boxes, which
    /// `CandidateSearch` looks up once for all). `crops`: the rows' crop windows in
    /// `plan.probedCropWindows` order, row after row, when the hashes do not hold them. The
    /// plan's `cheapCropWindows` go to the tables in a second call, at piece radius 0.
    func searchFrames(rows: [Int], crops: [UInt64]?, into found: inout [Candidate]) {
        let hashes = base.hashes, plan = hashes.plan
        let probed = plan.probedCropWindows, cropCount = probed.count
        let radiusOf = probed.map { plan.cropRadius(ofWindow: $0) }
        // Where each window hash is among a row's streamed crop windows (its first place in
        // `plan.probedCropWindows`, -1 if not there), for batches over their budget: worked out
        // once a call rather than by a search of the plan's 60 windows a candidate.
        var cropColumn = [Int](repeating: -1, count: FeatureWindow.hashedCount)
        for (column, k) in probed.enumerated().reversed() where k < cropColumn.count { cropColumn[k] = column }
        var scratch = MultiIndexHash.ProbeScratch()
        var queries: [UInt64] = [], radii: [UInt8] = [], asked: [Query] = []
        for first in stride(from: 0, to: rows.count, by: Self.rowsPerBatch) {
            let batch = first..<min(rows.count, first + Self.rowsPerBatch)
            queries.removeAll(keepingCapacity: true)
            radii.removeAll(keepingCapacity: true)
            asked.removeAll(keepingCapacity: true)
            let start = found.count
            func ask(_ hash: UInt64, radius: Int, row: Int, slot: UInt8) {
                queries.append(hash)
                radii.append(UInt8(radius))
                asked.append(Query(row: Int32(row), slot: slot))
            }
            func askCrops(_ columns: Range<Int>) {
                for position in batch {
                    let a = rows[position]
                    for index in columns where hashes.hasWindow(a, probed[index]) {
                        let window = crops.map { $0[position * cropCount + index] } ?? hashes.window(a, probed[index])
                        ask(window, radius: radiusOf[index], row: a, slot: UInt8(probed[index] + 1))
                    }
                }
            }
            for position in batch {
                let a = rows[position]
                ask(hashes.frames[a], radius: plan.frameRadius, row: a, slot: 0)
                if plan.mirrors, hashes.hasMirror[a] { ask(hashes.mirrors[a], radius: plan.frameRadius, row: a, slot: Candidate.mirrorSlot) }
                hashes.forEachOneWay(row: a) { hash, slot in ask(hash, radius: plan.frameRadius, row: a, slot: slot) }
            }
            askCrops(0..<plan.cropWindows.count)
            probe(queries, radii, asked, pieceRadius: pieceRadius, scratch: &scratch, into: &found)
            if !plan.cheapCropWindows.isEmpty {
                queries.removeAll(keepingCapacity: true)
                radii.removeAll(keepingCapacity: true)
                asked.removeAll(keepingCapacity: true)
                askCrops(plan.cropWindows.count..<cropCount)
                probe(queries, radii, asked, pieceRadius: 0, scratch: &scratch, into: &found)
            }
            // Over budget (look-alikes): the closest kept. Their distances are worked out again
            // only then, so that the probes' hot loop stays as it was.
            if let limit = base.pairingBudget?.framesLimit(rows: batch.count, of: hashes.count), found.count - start > limit {
                var position: [Int32: Int] = [:]
                for index in batch { position[Int32(rows[index])] = index }
                let distances = found[start...].map { candidate -> UInt8 in
                    let a = Int(candidate.a), frameB = hashes.frames[Int(candidate.b)]
                    let hash: UInt64
                    switch candidate.slotA {
                    case 0: hash = hashes.frames[a]
                    case Candidate.mirrorSlot: hash = hashes.mirrors[a]
                    case Candidate.turnedSlot, Candidate.squareSlot: hash = hashes.oneWayHash(a, slot: candidate.slotA)
                    default:
                        let k = Int(candidate.slotA) - 1
                        if let crops, let index = position[candidate.a], k < cropColumn.count, case let column = cropColumn[k], column >= 0 {
                            hash = crops[index * cropCount + column]
                        } else {
                            hash = hashes.window(a, k)
                        }
                    }
                    return UInt8((hash ^ frameB).nonzeroBitCount)
                }
                Self.keepClosest(&found, from: start, distances: distances, limit: limit)
            }
        }
    }

    /// One batched call of `queries` (asked for `asked`) to the frame index at `pieceRadius`,
    /// the pairings it finds appended to `found`.
    private func probe(_ queries: [UInt64], _ radii: [UInt8], _ asked: [Query], pieceRadius: Int,
                       scratch: inout MultiIndexHash.ProbeScratch, into found: inout [Candidate]) {
        let hashes = base.hashes
        base.frameIndex.forEachNeighbour(ofBatch: queries, radii: radii, pieceRadius: pieceRadius, scratch: &scratch) { query, b, _ in
            let asked = asked[query], a = Int(asked.row)
            switch asked.slot {
            case 0:
                if b > a { found.append(Candidate(a: asked.row, b: Int32(b), slotA: 0, slotB: 0)) }
            case Candidate.mirrorSlot:
                // Mirroring undoes itself: kept from the smaller row, or the only end that can find it.
                if b != a, b > a || !hashes.hasMirror[b] { found.append(Candidate(a: asked.row, b: Int32(b), slotA: Candidate.mirrorSlot, slotB: 0)) }
            default:
                // Another photo's whole frame is this one's window (a crop of it), its centre
                // square or this one turned clockwise (found from this end only).
                if b != a { found.append(Candidate(a: asked.row, b: Int32(b), slotA: asked.slot, slotB: 0)) }
            }
        }
    }

    /// Keeps, of the candidates `found[start...]` (`distances` theirs, in order), the closest:
    /// every one within the largest distance at which no more than `limit` are, so that a batch
    /// of look-alike photos keeps its closest pairings, not all of them (`PairingBudget`). When
    /// even those at distance 0 are more, the first `limit` of them.
    static func keepClosest(_ found: inout [Candidate], from start: Int, distances: [UInt8], limit: Int) {
        let produced = found.count - start
        precondition(distances.count == produced, "one distance per candidate")
        guard produced > limit else { return }
        var counts = [Int](repeating: 0, count: 65), cutoff = -1, total = 0
        for distance in distances { counts[Int(min(distance, 64))] += 1 }
        for distance in counts.indices {
            total += counts[distance]
            if total > limit { break }
            cutoff = distance
        }
        var kept = start, zeros = 0
        for index in 0..<produced {
            let distance = Int(distances[index])
            if cutoff >= 0 ? distance <= cutoff : distance == 0 && zeros < limit {
                zeros += distance == 0 ? 1 : 0
                found[kept] = found[start + index]
                kept += 1
            }
        }
        found.removeSubrange(kept...)
    }

    /// The pairings of `rows` through the plan's `interleavedCropWindows` that only this cut of
    /// the frames finds (`CandidateSearch+Interleaved`), in batches of as many rows as
    /// an overlay pass (a few queries a row: as dense in the table as a frame batch's). A batch
    /// keeps at most the budget of one overlay window (`PairingBudget.overlayLimit`), its closest.
    func searchInterleaved(_ interleaved: CandidateSearch.InterleavedIndex, rows: [Int], into found: inout [Candidate]) {
        let hashes = base.hashes, plan = hashes.plan
        var scratch = MultiIndexHash.ProbeScratch()
        var queries: [UInt64] = [], windows: [UInt64] = [], asked: [Query] = []
        let batch = base.overlayRowsPerBatch
        for first in stride(from: 0, to: rows.count, by: batch) {
            queries.removeAll(keepingCapacity: true)
            windows.removeAll(keepingCapacity: true)
            asked.removeAll(keepingCapacity: true)
            let batchRows = rows[first..<min(rows.count, first + batch)], start = found.count
            for a in batchRows {
                for k in plan.interleavedCropWindows where hashes.hasWindow(a, k) {
                    let window = hashes.window(a, k)
                    windows.append(window)
                    queries.append(interleaved.bits(window))
                    asked.append(Query(row: Int32(a), slot: UInt8(k + 1)))
                }
            }
            let radii = [UInt8](repeating: UInt8(plan.cropRadius), count: queries.count)
            var distances: [UInt8] = []
            interleaved.index.forEachNeighbour(ofBatch: queries, radii: radii, pieceRadius: pieceRadius, scratch: &scratch) { query, b, distance in
                let asked = asked[query]
                guard base.isInterleavedOnly(windows[query], frame: b, of: Int(asked.row), in: interleaved, pieceRadius: pieceRadius) else { return }
                found.append(Candidate(a: asked.row, b: Int32(b), slotA: asked.slot, slotB: 0))
                distances.append(UInt8(distance))
            }
            if let limit = base.pairingBudget?.overlayLimit(rows: batchRows.count, of: hashes.count), found.count - start > limit {
                Self.keepClosest(&found, from: start, distances: distances, limit: limit)
            }
        }
    }

    /// Every pairing of `rows` through the overlay window at `position` of the plan, against
    /// that window's table (`CandidateSearch.overlayIndex(position:threads:)`): the same window of both,
    /// whatever differs lies outside it.
    func searchOverlay(_ position: Int, index: MultiIndexHash, rows: [Int], into found: inout [Candidate]) {
        let hashes = base.hashes, plan = hashes.plan, k = plan.overlayWindows[position]
        let slot = UInt8(k + 1)
        var scratch = MultiIndexHash.ProbeScratch()
        var queries: [UInt64] = [], asking: [Int32] = []
        let batch = base.overlayRowsPerBatch
        for first in stride(from: 0, to: rows.count, by: batch) {
            queries.removeAll(keepingCapacity: true)
            asking.removeAll(keepingCapacity: true)
            let batchRows = rows[first..<min(rows.count, first + batch)], start = found.count
            for a in batchRows where hashes.hasWindow(a, k) {
                queries.append(hashes.window(a, k))
                asking.append(Int32(a))
            }
            let radii = [UInt8](repeating: UInt8(plan.overlayRadius), count: queries.count), rowOf = asking
            index.forEachNeighbour(ofBatch: queries, radii: radii, pieceRadius: pieceRadius, scratch: &scratch) { query, b, _ in
                let a = rowOf[query]
                if b > Int(a) { found.append(Candidate(a: a, b: Int32(b), slotA: slot, slotB: slot)) }
            }
            if let limit = base.pairingBudget?.overlayLimit(rows: batchRows.count, of: hashes.count), found.count - start > limit {
                let distances = found[start...].map { UInt8((hashes.window(Int($0.a), k) ^ hashes.window(Int($0.b), k)).nonzeroBitCount) }
                Self.keepClosest(&found, from: start, distances: distances, limit: limit)
            }
        }
    }
}
