/// Many queries at once: sorted by key, probed one mask at a time, in stages.
///
/// At a million hashes the tables do not fit in any cache, and a query is a series of
/// dependent misses: the occupancy bit, then the bucket's offsets, then its hashes, each
/// behind a branch that cannot be predicted (a third of probes find an occupied bucket).
/// Two things make a batch of queries cheaper than the same queries one at a time:
///
/// - **Stages.** The probes go through each stage together (the occupied buckets listed
///   without a branch, then every bucket's offsets read in one loop, then every bucket's
///   hashes), so the loads of one stage do not depend on each other and the processor keeps
///   many in flight.
/// - **Order.** The queries are sorted by their key in each table, and probed one mask at a
///   time: key XOR mask then runs through the table in order (in blocks, for a mask's high
///   bits), so consecutive probes land on the same or the next pages and cache lines of the
///   offsets and hashes instead of anywhere in 24 MiB. With thousands of queries a batch
///   (`BatchedSearch.rowsPerBatch`) most probes share a page with the one before.
extension MultiIndexHash {
    /// Working space of batched queries: one per thread, reused from batch to batch.
    struct ProbeScratch {
        /// Per query, its key in the table being probed; and the queries in key order.
        var keys: [UInt32] = []
        var order: [Int32] = []
        var spareOrder: [Int32] = []
        /// In key order (position i is query `order[i]`): each query's key, hash and radius,
        /// gathered once a table so that the probes of every mask read them in order.
        var sortedKeys: [UInt32] = []
        var sortedValues: [UInt64] = []
        var sortedRadii: [UInt8] = []
        /// Per probe of a stage: its bucket, its query's position in key order, and the
        /// bucket's slots.
        var buckets: [Int32] = []
        var positions: [Int32] = []
        var starts: [Int32] = []
        var ends: [Int32] = []
        /// Where the hash-touching loop leaves its sum, so that it is not optimised away.
        var touched: UInt64 = 0

        init() {}

        mutating func reserve(queries count: Int) {
            guard keys.count < count else { return }
            let size = max(count, keys.count * 2)
            keys = [UInt32](repeating: 0, count: size)
            order = [Int32](repeating: 0, count: size)
            spareOrder = [Int32](repeating: 0, count: size)
            sortedKeys = [UInt32](repeating: 0, count: size)
            sortedValues = [UInt64](repeating: 0, count: size)
            sortedRadii = [UInt8](repeating: 0, count: size)
        }

        mutating func reserve(probes: Int) {
            guard buckets.count < probes else { return }
            buckets = [Int32](repeating: 0, count: probes)
            positions = [Int32](repeating: 0, count: probes)
            starts = [Int32](repeating: 0, count: probes)
            ends = [Int32](repeating: 0, count: probes)
        }
    }

    /// Queries probed through the stages together, for one mask: their working space (about
    /// 130 KiB) stays in the cache between the stages.
    static let probesPerStage = 8192

    /// Calls `body(query, number, distance)` once for every stored hash within `radii[query]`
    /// bits of `queries[query]` that also agrees within `pieceRadius` bits on one whole piece
    /// (what `forEachNeighbour(of:within:pieceRadius:)` finds for each query alone; the calls
    /// come piece by piece and mask by mask, not query by query).
    func forEachNeighbour(ofBatch queries: [UInt64], radii: [UInt8], pieceRadius: Int,
                          scratch: inout ProbeScratch, _ body: (Int, Int, Int) -> Void) {
        precondition(radii.count == queries.count, "one radius per query")
        precondition((0...Self.precomputedRadius).contains(pieceRadius), "piece radius 0 to \(Self.precomputedRadius)")
        let m = pieceBits.count, count = self.count
        scratch.reserve(queries: queries.count)
        scratch.reserve(probes: Self.probesPerStage)
        for piece in 0..<m {
            let shift = UInt64(pieceShifts[piece]), keyMask = UInt64(1) << UInt64(pieceBits[piece]) - 1
            for query in queries.indices {
                scratch.keys[query] = UInt32(truncatingIfNeeded: (queries[query] >> shift) & keyMask)
            }
            Self.sortByKey(&scratch, count: queries.count, bits: pieceBits[piece])
            scratch.gatherInKeyOrder(queries, radii: radii)
            let table = offsetStart[piece], base = piece * count, words = occupiedStart[piece]
            for maskIndex in maskRange[piece * (Self.precomputedRadius + 1) + pieceRadius] {
                let mask = Int(masks[maskIndex])
                for first in stride(from: 0, to: queries.count, by: Self.probesPerStage) {
                    let sorted = first..<min(queries.count, first + Self.probesPerStage)
                    // Stage 1: each query's probe, kept only where its bucket holds something
                    // (written unconditionally, counted by the occupancy bit: no branch).
                    var found = 0
                    occupied.withUnsafeBufferPointer { occupied in
                        scratch.withStageOne { keys, buckets, owners in
                            for position in sorted {
                                let bucket = Int(keys[position]) ^ mask
                                buckets[found] = Int32(truncatingIfNeeded: bucket)
                                owners[found] = Int32(truncatingIfNeeded: position)
                                found &+= Int(truncatingIfNeeded: (occupied[words &+ bucket >> 6] >> UInt64(bucket & 63)) & 1)
                            }
                        }
                    }
                    probeOccupied(found, table: table, base: base, piece: piece, pieceRadius: pieceRadius, scratch: &scratch, body)
                }
            }
        }
    }

    /// Stages 2 and 3 of a batch for the `found` occupied probes stage 1 listed in `scratch`.
    @inline(__always)
    private func probeOccupied(_ found: Int, table: Int, base: Int, piece: Int, pieceRadius: Int,
                               scratch: inout ProbeScratch, _ body: (Int, Int, Int) -> Void) {
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
        // within `pieceRadius` there) is skipped. The probes are in key order, so their
        // queries' hashes and radii are read in order too.
        bucketHashes.withUnsafeBufferPointer { hashes in
            bucketIDs.withUnsafeBufferPointer { ids in
                scratch.withStageThree { positions, starts, ends, values, radii, order in
                    for index in 0..<found {
                        let position = Int(positions[index])
                        let value = values[position], radius = Int(radii[position])
                        var slot = base &+ Int(starts[index])
                        let end = base &+ Int(ends[index])
                        while slot < end {
                            let difference = hashes[slot] ^ value
                            let distance = difference.nonzeroBitCount
                            if distance <= radius && !foundEarlier(difference, before: piece, pieceRadius: pieceRadius) {
                                body(Int(order[position]), Int(ids[slot]), distance)
                            }
                            slot &+= 1
                        }
                    }
                }
            }
        }
    }

    /// Sorts `scratch.order[0..<count]` to the queries in order of `scratch.keys` (keys of
    /// `bits` bits), by least-significant-digit radix sort: 11 bits a pass (a 2,048-entry
    /// count that stays in the first-level cache), stable, so equal keys keep query order.
    static func sortByKey(_ scratch: inout ProbeScratch, count: Int, bits: Int) {
        for index in 0..<count { scratch.order[index] = Int32(truncatingIfNeeded: index) }
        let digitBits = 11, digits = 1 << 11
        var counts = [Int](repeating: 0, count: digits + 1)
        var shift = 0
        while shift < bits {
            for index in counts.indices { counts[index] = 0 }
            scratch.withSort { keys, order, spare in
                for index in 0..<count { counts[Int(keys[Int(order[index])] >> UInt32(shift)) & (digits - 1) + 1] += 1 }
                for digit in 1...digits { counts[digit] += counts[digit - 1] }
                for index in 0..<count {
                    let query = order[index]
                    let digit = Int(keys[Int(query)] >> UInt32(shift)) & (digits - 1)
                    spare[counts[digit]] = query
                    counts[digit] += 1
                }
            }
            swap(&scratch.order, &scratch.spareOrder)
            shift += digitBits
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

extension MultiIndexHash.ProbeScratch {
    /// Copies each query's key, hash and radius to its place in key order (after `sortByKey`):
    /// one scattered read per query and table, where the probes would make one per mask.
    mutating func gatherInKeyOrder(_ queries: [UInt64], radii: [UInt8]) {
        let count = queries.count
        keys.withUnsafeBufferPointer { keys in
            order.withUnsafeBufferPointer { order in
                sortedKeys.withUnsafeMutableBufferPointer { sortedKeys in
                    sortedValues.withUnsafeMutableBufferPointer { sortedValues in
                        sortedRadii.withUnsafeMutableBufferPointer { sortedRadii in
                            for position in 0..<count {
                                let query = Int(order[position])
                                sortedKeys[position] = keys[query]
                                sortedValues[position] = queries[query]
                                sortedRadii[position] = radii[query]
                            }
                        }
                    }
                }
            }
        }
    }

    /// The arrays stage 1 reads and writes, as buffers (no exclusivity checks in the loop).
    @inline(__always)
    mutating func withStageOne(_ body: (UnsafeBufferPointer<UInt32>, UnsafeMutableBufferPointer<Int32>,
                                        UnsafeMutableBufferPointer<Int32>) -> Void) {
        sortedKeys.withUnsafeBufferPointer { keys in
            buckets.withUnsafeMutableBufferPointer { buckets in
                positions.withUnsafeMutableBufferPointer { owners in body(keys, buckets, owners) }
            }
        }
    }

    /// The arrays stage 3 reads, as buffers: per probe its position in key order and its
    /// bucket's slots; per position the query's hash, radius and number.
    @inline(__always)
    func withStageThree(_ body: (UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>,
                                 UnsafeBufferPointer<UInt64>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Int32>) -> Void) {
        positions.withUnsafeBufferPointer { positions in
            starts.withUnsafeBufferPointer { starts in
                ends.withUnsafeBufferPointer { ends in
                    sortedValues.withUnsafeBufferPointer { values in
                        sortedRadii.withUnsafeBufferPointer { radii in
                            order.withUnsafeBufferPointer { order in body(positions, starts, ends, values, radii, order) }
                        }
                    }
                }
            }
        }
    }

    /// The arrays a radix-sort pass reads and writes, as buffers.
    @inline(__always)
    mutating func withSort(_ body: (UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<Int32>, UnsafeMutableBufferPointer<Int32>) -> Void) {
        keys.withUnsafeBufferPointer { keys in
            order.withUnsafeBufferPointer { order in
                spareOrder.withUnsafeMutableBufferPointer { spare in body(keys, order, spare) }
            }
        }
    }
}
