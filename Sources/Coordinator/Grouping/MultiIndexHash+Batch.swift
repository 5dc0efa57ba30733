/// Many queries at once, in stages, so that the trips to memory overlap.
///
/// At a million hashes the tables do not fit in any cache, and a query is a series of
/// dependent misses: the occupancy bit, then the bucket's offsets, then its hashes, each
/// behind a branch that cannot be predicted (a third of probes find an occupied bucket). One
/// query at a time the processor waits for each in turn. Here the probes of every query of a
/// batch go through each stage together (the occupied buckets listed without a branch, then
/// every bucket's offsets read in one loop, then every bucket's hashes), so the loads of one
/// stage do not depend on each other and the processor keeps many in flight.
extension MultiIndexHash {
    /// Working space of batched queries: one per thread, reused from batch to batch.
    struct ProbeScratch {
        var buckets: [Int32] = []
        var queries: [Int32] = []
        var starts: [Int32] = []
        var ends: [Int32] = []
        /// Where the hash-touching loop leaves its sum, so that it is not optimised away.
        var touched: UInt64 = 0

        init() {}

        mutating func reserve(_ probes: Int) {
            guard buckets.count < probes else { return }
            let size = max(probes, buckets.count * 2)
            buckets = [Int32](repeating: 0, count: size)
            queries = [Int32](repeating: 0, count: size)
            starts = [Int32](repeating: 0, count: size)
            ends = [Int32](repeating: 0, count: size)
        }
    }

    /// Calls `body(query, number, distance)` once for every stored hash within `radii[query]`
    /// bits of `queries[query]` that also agrees within `pieceRadius` bits on one whole piece
    /// (what `forEachNeighbour(of:within:pieceRadius:)` finds for each query alone; the calls
    /// come piece by piece, not query by query). `salts[query]`: the key salt of the kind of
    /// hash that query looks for (see `init`); empty for none.
    func forEachNeighbour(ofBatch queries: [UInt64], radii: [UInt8], salts: [UInt64] = [], pieceRadius: Int,
                          scratch: inout ProbeScratch, _ body: (Int, Int, Int) -> Void) {
        precondition(radii.count == queries.count && (salts.isEmpty || salts.count == queries.count), "one radius (and salt) per query")
        precondition((0...Self.precomputedRadius).contains(pieceRadius), "piece radius 0 to \(Self.precomputedRadius)")
        let m = pieceBits.count, count = self.count
        for piece in 0..<m {
            let probes = maskRange[piece * (Self.precomputedRadius + 1) + pieceRadius]
            scratch.reserve(queries.count * probes.count)
            let shift = UInt64(pieceShifts[piece]), keyMask = UInt64(1) << UInt64(pieceBits[piece]) - 1
            let table = offsetStart[piece], base = piece * count, words = occupiedStart[piece]
            var found = 0
            // Stage 1: every probe of every query, kept only where its bucket holds something
            // (written unconditionally, counted by the occupancy bit: no branch).
            occupied.withUnsafeBufferPointer { occupied in
                masks.withUnsafeBufferPointer { masks in
                    scratch.buckets.withUnsafeMutableBufferPointer { buckets in
                        scratch.queries.withUnsafeMutableBufferPointer { owners in
                            for query in queries.indices {
                                let salted = queries[query] ^ (salts.isEmpty ? 0 : salts[query])
                                let key = Int(truncatingIfNeeded: (salted >> shift) & keyMask)
                                for index in probes {
                                    let bucket = key ^ Int(masks[index])
                                    buckets[found] = Int32(truncatingIfNeeded: bucket)
                                    owners[found] = Int32(truncatingIfNeeded: query)
                                    found &+= Int(truncatingIfNeeded: (occupied[words &+ bucket >> 6] >> UInt64(bucket & 63)) & 1)
                                }
                            }
                        }
                    }
                }
            }
            // Stage 2: the offsets of every occupied bucket, and the first hash of each
            // touched, in loops whose loads are independent of each other. (The touching loop
            // looks useless and is not: without it stage 3 waits for each bucket in turn;
            // bench/grouping.sh at a million rows, 8 rows a batch: 27 s with it, 45 s without.)
            offsets.withUnsafeBufferPointer { offsets in
                bucketHashes.withUnsafeBufferPointer { hashes in
                    scratch.buckets.withUnsafeBufferPointer { buckets in
                        scratch.starts.withUnsafeMutableBufferPointer { starts in
                            scratch.ends.withUnsafeMutableBufferPointer { ends in
                                for index in 0..<found {
                                    let probe = table &+ Int(buckets[index])
                                    starts[index] = offsets[probe]
                                    ends[index] = offsets[probe &+ 1]
                                }
                                var sum: UInt64 = 0
                                for index in 0..<found { sum &+= hashes[base &+ Int(starts[index])] }
                                scratch.touched &+= sum
                            }
                        }
                    }
                }
            }
            // Stage 3: the hashes of each bucket, checked; a hash an earlier piece found (it is
            // within `pieceRadius` there) is skipped.
            bucketHashes.withUnsafeBufferPointer { hashes in
                bucketIDs.withUnsafeBufferPointer { ids in
                    for index in 0..<found {
                        let query = Int(scratch.queries[index])
                        let value = queries[query], radius = Int(radii[query])
                        var slot = base + Int(scratch.starts[index])
                        let end = base + Int(scratch.ends[index])
                        while slot < end {
                            let difference = hashes[slot] ^ value
                            let distance = difference.nonzeroBitCount
                            if distance <= radius && !foundEarlier(difference, before: piece, pieceRadius: pieceRadius) {
                                body(query, Int(ids[slot]), distance)
                            }
                            slot += 1
                        }
                    }
                }
            }
        }
    }

    /// Whether a hash that differs from the query by `difference` agrees within `pieceRadius`
    /// bits on a piece before `piece` (so that piece's probes found it already).
    @inline(__always)
    private func foundEarlier(_ difference: UInt64, before piece: Int, pieceRadius: Int) -> Bool {
        var earlier = 0
        while earlier < piece {
            let bits = (difference >> UInt64(pieceShifts[earlier])) & (UInt64(1) << UInt64(pieceBits[earlier]) - 1)
            if bits.nonzeroBitCount <= pieceRadius { return true }
            earlier += 1
        }
        return false
    }
}
