/// The bits of a 64-bit hash dealt out to `m` pieces in turn, as cards are: bit i goes to piece
/// i mod m, in order within it. A second `MultiIndexHash` of the frames so interleaved cuts
/// them into other pieces than the first (each takes a third of its bits from each of the
/// first's at 3 pieces), so a pair that the first's probes miss has a second chance.
///
/// Why: at 3 pieces (libraries past about 500,000 photos) probing each piece within 1 bit finds
/// every hash within 5 bits, and one within 6–8 bits only when its differing bits leave one
/// piece with at most one. The crops of two sides a million rows' probes lost lay 6–8 bits off
/// a corner window (bench/RESULTS.md, "Where the last families are lost"). A miss needs every
/// piece of both cuts to hold two differing bits or more: for differing bits spread at random,
/// about 12% of pairs at 6 bits miss one cut, and 2% both (29% and 8% at 7 bits, 45% and 20%
/// at 8). Probing the second cut costs what the first does, per query: it is asked only for
/// the few windows where a crop of two sides lands (`CandidatePlan.interleavedCropWindows`).
/// Interleaving, not a random shuffle: pHash bits run in the order of the DCT's coefficients,
/// so neighbouring bits (one coefficient's neighbours) differ together more often than bits
/// far apart, and dealing them out puts neighbours in different pieces.
struct InterleavedBits: Sendable {
    let pieces: Int
    /// For each of the hash's 8 bytes, each byte value's bits at their new places.
    private let table: [UInt64]

    /// The interleavings for 3 to 8 pieces, made once.
    static let byPieces = (3...8).map { InterleavedBits(pieces: $0) }

    /// The interleaving for `m` pieces (3 to 8).
    static func pieces(_ m: Int) -> InterleavedBits { byPieces[m - 3] }

    private init(pieces m: Int) {
        precondition((3...8).contains(m), "3 to 8 pieces")
        pieces = m
        // Piece j holds the bits i ≡ j (mod m): as many as `MultiIndexHash.pieceBits(m)[j]`,
        // so the pieces of the interleaved hash are the index's pieces.
        let bits = MultiIndexHash.pieceBits(m)
        let starts = bits.indices.map { bits[..<$0].reduce(0, +) }
        var table = [UInt64](repeating: 0, count: 8 * 256)
        for byte in 0..<8 {
            for value in 0..<256 {
                var moved: UInt64 = 0
                for bit in 0..<8 where value >> bit & 1 == 1 {
                    let i = 8 * byte + bit
                    moved |= 1 << UInt64(starts[i % m] + i / m)
                }
                table[byte * 256 + value] = moved
            }
        }
        self.table = table
    }

    @inline(__always)
    func callAsFunction(_ hash: UInt64) -> UInt64 {
        table.withUnsafeBufferPointer { table in
            var moved: UInt64 = 0
            for byte in 0..<8 { moved |= table[byte * 256 + Int(truncatingIfNeeded: hash >> UInt64(8 * byte) & 0xFF)] }
            return moved
        }
    }
}
