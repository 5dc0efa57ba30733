import Foundation

/// Exact Hamming-radius search over 64-bit hashes by multi-index hashing (Norouzi, Punjani and
/// Fleet, "Fast Exact Search in Hamming Space with Multi-Index Hashing", 2014).
///
/// The hash is cut into `m` pieces, each the key of one table. Two hashes within distance
/// r = s·m + a (0 ≤ a < m) agree within s bits on one of the first a + 1 pieces, or within s − 1
/// bits on one of the others (the generalised pigeonhole principle), so a query probes every
/// key within s (or s − 1) bits of its own piece in each table and checks the full distance of
/// what it finds. `m` follows the library size: about 64 / log2(n) pieces, so that a bucket
/// holds about one hash whatever n is (the paper's choice; its code uses 4 at a million).
///
/// Layout, for speed on large libraries: each table is compressed sparse rows (an offset per key
/// into one array), and the array holds the hashes themselves beside their numbers, so checking
/// a bucket reads memory in order instead of jumping to a separate hash array for every entry.
/// Memory: per table 4·(2^bits + 1) bytes of offsets, 2^bits / 8 bytes of occupancy bits and
/// 12 bytes per hash.
///
/// At a million hashes two probes in three land in an empty bucket, and the offsets (16 MiB a
/// table at 22 bits) do not fit in the cache: each such probe cost a trip to memory for
/// nothing. One bit per bucket (512 KiB a table, which stays in the cache) says whether the
/// bucket holds anything, so only occupied buckets read their offsets (perf, bench/grouping.sh
/// at 1,000,000 rows: 69% of 3.2 billion probes were empty).
///
/// The query loop is written for speed: the tables are three flat arrays read through unsafe
/// pointers, and the probe masks for each piece and radius are worked out once, at build time.
/// (A first version enumerated masks with a recursive closure and read nested arrays: half its
/// time went to reference counting, measured with perf in bench/grouping.sh's benchmark.)
struct MultiIndexHash: Sendable {
    let count: Int
    let pieceBits: [Int]
    let pieceShifts: [Int]
    /// All pieces' tables, one after another: piece p's offsets start at `offsetStart[p]`
    /// (2^bits + 1 of them), its hashes and ids at p · count.
    let offsets: [Int32]
    let offsetStart: [Int]
    /// Bit k of piece p's words (from `occupiedStart[p]`): whether bucket k holds a hash.
    let occupied: [UInt64]
    let occupiedStart: [Int]
    let bucketHashes: [UInt64]
    let bucketIDs: [Int32]
    /// Probe masks: for piece p and radius r, `masks[maskRange[p * (Self.precomputedRadius + 1) + r]]`.
    let masks: [Int32]
    let maskRange: [Range<Int>]
    /// Radii up to this have their masks worked out at build time; larger ones (exact searches
    /// at wide radii on few pieces) enumerate them per query.
    static let precomputedRadius = 3

    /// Pieces for `n` hashes: 64 / log2(n), at least 3 (a piece of at most 22 bits: a table of
    /// 16 MiB of offsets) and at most 8.
    static func pieceCount(for n: Int) -> Int {
        min(8, max(3, Int((64.0 / log2(Double(max(n, 2)))).rounded())))
    }

    /// The bits of each of `m` pieces: 64 spread as evenly as possible, the first 64 % m
    /// pieces one bit longer.
    static func pieceBits(_ m: Int) -> [Int] { (0..<m).map { 64 / m + ($0 < 64 % m ? 1 : 0) } }

    /// Whether `a` and `b` agree within `radius` bits on one whole piece of `m`: what a search
    /// with `pieceRadius` needs, besides the full distance, to find a hash.
    /// The pieces' widths are worked out as `pieceBits(m)` gives them, with nothing allocated:
    /// the search asks this of every hit the second cut of the frames returns
    /// (`CandidateSearch.isInterleavedOnly`).
    @inline(__always)
    static func agreeOnAPiece(_ a: UInt64, _ b: UInt64, pieces m: Int, within radius: Int) -> Bool {
        let difference = a ^ b
        var shift = 0
        for piece in 0..<m {
            let bits = 64 / m + (piece < 64 % m ? 1 : 0)
            if (difference >> UInt64(shift) & ((1 << UInt64(bits)) - 1)).nonzeroBitCount <= radius { return true }
            shift += bits
        }
        return false
    }

    /// `ids`: the number each hash is reported as (default: its index). One kind of hash a table:
    /// a photo's overlapping windows are alike and would crowd the same buckets of a shared one
    /// (`CandidateSearch.overlayIndex(position:threads:)` builds a table per overlay window).
    /// `threads`: the pieces' tables are built on that many threads (`ParallelChunks`, so only
    /// from a thread that may block, never the cooperative pool). At a million rows a table of
    /// three pieces took 0.2 s of one thread, seven times a grouping, with the other core idle.
    init(_ hashes: [UInt64], ids: [Int32]? = nil, pieces: Int? = nil, threads: Int = 1) {
        precondition(hashes.count < Int(Int32.max), "too many hashes for one index")
        precondition(ids == nil || ids?.count == hashes.count, "one id per hash")
        let count = hashes.count
        self.count = count
        let m = pieces ?? Self.pieceCount(for: hashes.count)
        precondition((3...8).contains(m), "3 to 8 pieces")
        let bits = Self.pieceBits(m)
        pieceBits = bits
        let shifts = bits.indices.map { bits[..<$0].reduce(0, +) }
        pieceShifts = shifts
        // Each piece's offsets, occupancy words, hashes and ids lie in ranges of their own.
        // (2^bits + 1 offsets and one occupancy bit per key, a piece.)
        let offsetCounts = bits.map { (1 << $0) + 1 }, wordCounts = bits.map { ((1 << $0) + 63) / 64 }
        let offsetStart = offsetCounts.indices.map { offsetCounts[..<$0].reduce(0, +) }
        let occupiedStart = wordCounts.indices.map { wordCounts[..<$0].reduce(0, +) }
        var offsets = [Int32](repeating: 0, count: offsetCounts.reduce(0, +))
        var occupied = [UInt64](repeating: 0, count: wordCounts.reduce(0, +))
        var bucketHashes = [UInt64](repeating: 0, count: m * count)
        var bucketIDs = [Int32](repeating: 0, count: m * count)
        offsets.withUnsafeMutableBufferPointer { offsets in
            occupied.withUnsafeMutableBufferPointer { occupied in
                bucketHashes.withUnsafeMutableBufferPointer { bucketHashes in
                    bucketIDs.withUnsafeMutableBufferPointer { bucketIDs in
                        let tables = PieceTables(offsets: offsets, occupied: occupied, hashes: bucketHashes, ids: bucketIDs)
                        _ = ParallelChunks.run(count: m, threads: min(threads, m), chunk: 1, initial: { () }) { range, _ in
                            for piece in range {
                                tables.build(piece, of: hashes, ids: ids, bits: bits[piece], shift: shifts[piece],
                                             offsetStart: offsetStart[piece], occupiedStart: occupiedStart[piece])
                            }
                        }
                    }
                }
            }
        }
        self.offsets = offsets
        self.offsetStart = offsetStart
        self.occupied = occupied
        self.occupiedStart = occupiedStart
        self.bucketHashes = bucketHashes
        self.bucketIDs = bucketIDs
        var masks: [Int32] = [], maskRange: [Range<Int>] = []
        for piece in 0..<m {
            for radius in 0...Self.precomputedRadius {
                let start = masks.count
                BitMasks.forEach(bits: bits[piece], upTo: radius) { masks.append(Int32($0)) }
                maskRange.append(start..<masks.count)
            }
        }
        self.masks = masks
        self.maskRange = maskRange
    }

    /// The radius each piece is searched at for a query radius `r`: s for the first a + 1
    /// pieces, s − 1 (none, if negative) for the rest.
    func pieceRadii(for radius: Int) -> [Int] {
        pieceBits.indices.map { Self.probeRadius(piece: $0, pieces: pieceBits.count, radius: radius, pieceRadius: nil) }
    }

    @inline(__always)
    static func probeRadius(piece: Int, pieces m: Int, radius: Int, pieceRadius: Int?) -> Int {
        if let pieceRadius { return pieceRadius }
        let s = radius / m, a = radius % m
        return piece <= a ? s : s - 1
    }

    /// Calls `body(number, distance)` once for every stored hash within `radius` bits of
    /// `query`: a hash found through one piece is skipped there if an earlier piece already
    /// found it (it is within that piece's radius there).
    ///
    /// With `pieceRadius`, every piece is probed at that radius instead: cheaper, and no longer
    /// exact past (pieceRadius + 1) · m − 1 bits: a hash within `radius` is found only if it
    /// also agrees within `pieceRadius` bits on one whole piece.
    func forEachNeighbour(of query: UInt64, within radius: Int, pieceRadius: Int? = nil, _ body: (Int, Int) -> Void) {
        let m = pieceBits.count, count = self.count
        occupied.withUnsafeBufferPointer { occupied in
            offsets.withUnsafeBufferPointer { offsets in
                bucketHashes.withUnsafeBufferPointer { hashes in
                    bucketIDs.withUnsafeBufferPointer { ids in
                        masks.withUnsafeBufferPointer { masks in
                            pieceShifts.withUnsafeBufferPointer { shifts in
                                pieceBits.withUnsafeBufferPointer { bits in
                                    for piece in 0..<m {
                                        let probeRadius = Self.probeRadius(piece: piece, pieces: m, radius: radius, pieceRadius: pieceRadius)
                                        guard probeRadius >= 0 else { continue }
                                        let key = Int(truncatingIfNeeded: (query >> UInt64(shifts[piece])) & ((1 << UInt64(bits[piece])) - 1))
                                        let table = offsetStart[piece], base = piece * count, words = occupiedStart[piece]
                                        // Visits one bucket: every hash within the radius that no earlier piece found.
                                        func visit(_ mask: Int) {
                                            let bucket = key ^ mask
                                            guard occupied[words + bucket >> 6] & (1 << UInt64(bucket & 63)) != 0 else { return }
                                            let probe = table + bucket
                                            var slot = base + Int(offsets[probe])
                                            let end = base + Int(offsets[probe + 1])
                                            while slot < end {
                                                let difference = hashes[slot] ^ query
                                                let distance = difference.nonzeroBitCount
                                                if distance <= radius {
                                                    var foundEarlier = false
                                                    var earlier = 0
                                                    while earlier < piece {
                                                        let bitsHere = (difference >> UInt64(shifts[earlier])) & ((1 << UInt64(bits[earlier])) - 1)
                                                        if bitsHere.nonzeroBitCount <= Self.probeRadius(piece: earlier, pieces: m, radius: radius, pieceRadius: pieceRadius) {
                                                            foundEarlier = true
                                                            break
                                                        }
                                                        earlier += 1
                                                    }
                                                    if !foundEarlier { body(Int(ids[slot]), distance) }
                                                }
                                                slot += 1
                                            }
                                        }
                                        if probeRadius <= Self.precomputedRadius {
                                            for index in maskRange[piece * (Self.precomputedRadius + 1) + probeRadius] { visit(Int(masks[index])) }
                                        } else {
                                            BitMasks.forEach(bits: bits[piece], upTo: probeRadius, visit)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The arrays of a `MultiIndexHash` being built, written piece by piece from the threads of
/// its build.
private struct PieceTables: @unchecked Sendable {
    // @unchecked: the buffers belong to arrays that outlive the build (`MultiIndexHash.init`
    // holds them across `ParallelChunks.run`, which returns only once every thread is done),
    // and each piece writes only its own ranges of them: its 2^bits + 1 offsets and occupancy
    // words from its starts, its hashes and ids from piece · count. No element is written by
    // two threads, and none is read until the build has joined.
    let offsets: UnsafeMutableBufferPointer<Int32>
    let occupied: UnsafeMutableBufferPointer<UInt64>
    let hashes: UnsafeMutableBufferPointer<UInt64>
    let ids: UnsafeMutableBufferPointer<Int32>

    /// Piece `piece`'s table, as compressed sparse rows: a bucket per key of its `bits` bits
    /// (from `shift`), its hashes in input order.
    func build(_ piece: Int, of input: [UInt64], ids inputIDs: [Int32]?, bits: Int, shift: Int, offsetStart: Int, occupiedStart: Int) {
        let keys = 1 << bits, count = input.count
        let mask = UInt64(keys - 1)
        @inline(__always) func key(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: (hash >> UInt64(shift)) & mask) }
        let counts = UnsafeMutableBufferPointer(rebasing: offsets[offsetStart..<(offsetStart + keys + 1)])
        for hash in input { counts[key(hash) + 1] += 1 }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var next = [Int32](counts)
        let base = piece * count
        for (index, hash) in input.enumerated() {
            let k = key(hash)
            let slot = base + Int(next[k])
            ids[slot] = inputIDs?[index] ?? Int32(index)
            hashes[slot] = hash
            next[k] += 1
        }
        for k in 0..<keys where counts[k + 1] > counts[k] { occupied[occupiedStart + (k >> 6)] |= 1 << UInt64(k & 63) }
    }
}
