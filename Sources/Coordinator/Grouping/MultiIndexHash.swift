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
/// Memory: per table 4·(2^bits + 1) bytes of offsets and 12 bytes per hash.
struct MultiIndexHash: Sendable {
    let count: Int
    let pieceBits: [Int]
    private let pieceShifts: [Int]
    private var offsets: [[Int32]] = []
    private var bucketHashes: [[UInt64]] = []
    private var bucketIDs: [[Int32]] = []

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
    static func agreeOnAPiece(_ a: UInt64, _ b: UInt64, pieces m: Int, within radius: Int) -> Bool {
        var shift = 0
        for bits in pieceBits(m) {
            if ((a ^ b) >> UInt64(shift) & ((1 << UInt64(bits)) - 1)).nonzeroBitCount <= radius { return true }
            shift += bits
        }
        return false
    }

    init(_ hashes: [UInt64], pieces: Int? = nil) {
        precondition(hashes.count < Int(Int32.max), "too many hashes for one index")
        count = hashes.count
        let m = pieces ?? Self.pieceCount(for: hashes.count)
        precondition((3...8).contains(m), "3 to 8 pieces")
        let bits = Self.pieceBits(m)
        pieceBits = bits
        pieceShifts = bits.indices.map { bits[..<$0].reduce(0, +) }
        for piece in 0..<m {
            let keys = 1 << pieceBits[piece]
            var counts = [Int32](repeating: 0, count: keys + 1)
            for hash in hashes { counts[key(hash, piece) + 1] += 1 }
            for k in 1..<counts.count { counts[k] += counts[k - 1] }
            var next = counts
            var ids = [Int32](repeating: 0, count: hashes.count)
            var inline = [UInt64](repeating: 0, count: hashes.count)
            for (index, hash) in hashes.enumerated() {
                let k = key(hash, piece)
                let slot = Int(next[k])
                ids[slot] = Int32(index)
                inline[slot] = hash
                next[k] += 1
            }
            offsets.append(counts)
            bucketIDs.append(ids)
            bucketHashes.append(inline)
        }
    }

    private func pieceDistance(_ a: UInt64, _ b: UInt64, _ piece: Int) -> Int {
        key(a ^ b, piece).nonzeroBitCount
    }

    private func key(_ hash: UInt64, _ piece: Int) -> Int {
        Int(truncatingIfNeeded: (hash >> UInt64(pieceShifts[piece])) & ((1 << UInt64(pieceBits[piece])) - 1))
    }

    /// The radius each piece is searched at for a query radius `r`: s for the first a + 1
    /// pieces, s − 1 (none, if negative) for the rest.
    func pieceRadii(for radius: Int) -> [Int] {
        pieceBits.indices.map { probeRadius(piece: $0, radius: radius, pieceRadius: nil) }
    }

    /// One piece's probe radius, worked out per query without building an array (the search
    /// asks it for every query and every earlier piece).
    private func probeRadius(piece: Int, radius: Int, pieceRadius: Int?) -> Int {
        if let pieceRadius { return pieceRadius }
        let m = pieceBits.count
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
        for piece in pieceBits.indices {
            let pieceRadiusHere = probeRadius(piece: piece, radius: radius, pieceRadius: pieceRadius)
            guard pieceRadiusHere >= 0 else { continue }
            let earlier = 0..<piece
            let k = key(query, piece)
            offsets[piece].withUnsafeBufferPointer { table in
                bucketHashes[piece].withUnsafeBufferPointer { hashes in
                    bucketIDs[piece].withUnsafeBufferPointer { ids in
                        BitMasks.forEach(bits: pieceBits[piece], upTo: pieceRadiusHere) { mask in
                            let probe = k ^ mask
                            for slot in Int(table[probe])..<Int(table[probe + 1]) {
                                let stored = hashes[slot]
                                let distance = (stored ^ query).nonzeroBitCount
                                guard distance <= radius else { continue }
                                if earlier.contains(where: { pieceDistance(stored, query, $0) <= probeRadius(piece: $0, radius: radius, pieceRadius: pieceRadius) }) {
                                    continue
                                }
                                body(Int(ids[slot]), distance)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Enumerates every mask of `bits` bits with at most `upTo` bits set, without building a list
/// (at 22 bits and radius 3 there are 1,794).
enum BitMasks {
    static func forEach(bits: Int, upTo radius: Int, _ body: (Int) -> Void) {
        body(0)
        extend(0, from: 0, bits: bits, left: radius, body)
    }

    private static func extend(_ mask: Int, from first: Int, bits: Int, left: Int, _ body: (Int) -> Void) {
        guard left > 0, first < bits else { return }
        for bit in first..<bits {
            let next = mask | 1 << bit
            body(next)
            extend(next, from: bit + 1, bits: bits, left: left - 1, body)
        }
    }
}
