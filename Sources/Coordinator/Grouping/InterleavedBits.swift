/// The bits of a 64-bit hash cut into `m` pieces other than the frame index's (which takes them
/// in runs: bits 0–21, 22–42, 43–63 at 3 pieces), so that a second and a third
/// `MultiIndexHash` of the frames give a pair that the first's probes miss more chances.
///
/// - **Dealt** (the second cut): bit i goes to piece i mod m, as cards are dealt. At 3 pieces
///   each piece takes a third of its bits from each run.
/// - **Crossed** (the third cut): bit i goes to piece (r + i mod m) mod m, r its run. Each
///   piece takes a third of its bits from each run and a third from each dealt piece: a
///   differing pair of bits that shares a piece of either earlier cut falls apart here.
///
/// Why: at 3 pieces (libraries past about 500,000 photos) probing each piece within 1 bit finds
/// every hash within 5 bits, and one within 6–8 bits only when its differing bits leave one
/// piece with at most one. The crops of two sides a million rows' probes lost lay 6–10 bits off
/// a corner window (bench/RESULTS.md, "Where the last families are lost"). A miss needs every
/// piece of every cut to hold two differing bits or more. For differing bits spread at random
/// (200,000 draws a count), the pairs that miss the first cut, the first two and all three:
/// 14%, 2%, 0.6% at 6 bits; 49%, 24%, 11% at 8; 75%, 55%, 41% at 10 (the corner windows'
/// radius). Probing another cut costs what the first does, per query: it is asked only for the
/// few windows where a crop of two sides lands (`CandidatePlan.interleavedCropWindows`).
/// Dealing, not a random shuffle: pHash bits run in the order of the DCT's coefficients, so
/// neighbouring bits (one coefficient's neighbours) differ together more often than bits far
/// apart, and both cuts put neighbours in different pieces.
struct InterleavedBits: Sendable {
    let pieces: Int
    /// For each of the hash's 8 bytes, each byte value's bits at their new places.
    private let table: [UInt64]

    /// The cuts past the frame index's, in the order they are probed: dealt, then crossed.
    enum Cut: Int, Sendable, CaseIterable {
        case dealt, crossed
    }

    /// The cuts for 3 to 8 pieces, made once: `made[cut][m - 3]`.
    private static let made = Cut.allCases.map { cut in (3...8).map { InterleavedBits(pieces: $0, cut: cut) } }

    /// `cut` for `m` pieces (3 to 8).
    static func cut(_ cut: Cut, pieces m: Int) -> InterleavedBits { made[cut.rawValue][m - 3] }

    private init(pieces m: Int, cut: Cut) {
        precondition((3...8).contains(m), "3 to 8 pieces")
        pieces = m
        let bits = MultiIndexHash.pieceBits(m)
        let starts = bits.indices.map { bits[..<$0].reduce(0, +) }
        let run = (0..<64).map { i in starts.lastIndex { $0 <= i }! }
        // Each bit's piece in this cut; the bits then take their places piece by piece, in
        // order within a piece, cut to the index's piece widths. Dealt, piece j holds the bits
        // i ≡ j (mod m): as many as `pieceBits(m)[j]`. Crossed at 3 pieces, too (22, 21, 21);
        // at more pieces a piece's last bits may spill into the next.
        let piece = (0..<64).map { i in cut == .dealt ? i % m : (run[i] + i % m) % m }
        let order = (0..<64).sorted { (piece[$0], $0) < (piece[$1], $1) }
        var place = [Int](repeating: 0, count: 64)
        for (position, i) in order.enumerated() { place[i] = position }
        var table = [UInt64](repeating: 0, count: 8 * 256)
        for byte in 0..<8 {
            for value in 0..<256 {
                var moved: UInt64 = 0
                for bit in 0..<8 where value >> bit & 1 == 1 { moved |= 1 << UInt64(place[8 * byte + bit]) }
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
