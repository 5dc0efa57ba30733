/// Multi-index hashing over 64-bit hashes: finds every stored hash within a Hamming radius of a
/// query without comparing against all of them.
///
/// The hash is cut into four 16-bit pieces; two hashes within distance t agree within ⌊t/4⌋
/// bits on at least one piece (pigeonhole). Each piece has a table in compressed-sparse-row
/// form (an offset per 16-bit key into one array of entry numbers), so a probe is two array
/// reads, and the tables cost 4 × (65,537 + n) integers however the hashes cluster.
struct HashIndex: Sendable {
    static let pieces = 4
    private static let bitsPerPiece = 16

    let hashes: [UInt64]
    private var offsets: [[Int32]] = []
    private var entries: [[Int32]] = []

    init(_ hashes: [UInt64]) {
        precondition(hashes.count < Int(Int32.max), "too many hashes for one index")
        self.hashes = hashes
        for piece in 0..<Self.pieces {
            var counts = [Int32](repeating: 0, count: (1 << Self.bitsPerPiece) + 1)
            for hash in hashes { counts[Self.key(hash, piece) + 1] += 1 }
            for key in 1..<counts.count { counts[key] += counts[key - 1] }
            var next = counts
            var slots = [Int32](repeating: 0, count: hashes.count)
            for (index, hash) in hashes.enumerated() {
                let key = Self.key(hash, piece)
                slots[Int(next[key])] = Int32(index)
                next[key] += 1
            }
            offsets.append(counts)
            entries.append(slots)
        }
    }

    /// Calls `body` with the number of every stored hash within `radius` bits of `query`
    /// (possibly more than once each).
    func forEachNeighbour(of query: UInt64, within radius: Int, _ body: (Int) -> Void) {
        let masks = Self.masks(upTo: radius / Self.pieces)
        for piece in 0..<Self.pieces {
            let key = Self.key(query, piece)
            let table = offsets[piece], slots = entries[piece]
            for mask in masks {
                let probe = key ^ Int(mask)
                for slot in Int(table[probe])..<Int(table[probe + 1]) {
                    let index = Int(slots[slot])
                    if (hashes[index] ^ query).nonzeroBitCount <= radius { body(index) }
                }
            }
        }
    }

    private static func key(_ hash: UInt64, _ piece: Int) -> Int {
        Int(truncatingIfNeeded: (hash >> UInt64(piece * bitsPerPiece)) & 0xFFFF)
    }

    /// Every 16-bit mask with at most `bits` bits set, for the radii grouping uses (cached).
    static func masks(upTo bits: Int) -> [UInt16] {
        bits < cachedMasks.count ? cachedMasks[bits] : makeMasks(upTo: bits)
    }

    private static let cachedMasks: [[UInt16]] = (0...3).map { makeMasks(upTo: $0) }

    private static func makeMasks(upTo bits: Int) -> [UInt16] {
        (0..<(1 << bitsPerPiece)).compactMap { value in
            value.nonzeroBitCount <= bits ? UInt16(value) : nil
        }
    }
}
