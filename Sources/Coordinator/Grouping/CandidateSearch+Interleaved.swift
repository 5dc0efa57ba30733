/// The corner windows and caption bands looked up again in the frames cut into other pieces
/// (`InterleavedBits`, `CandidatePlan.interleavedCropWindows`): a pass of its own for each cut
/// after the frames' pass, its table built when the pass starts and let go when it ends, as an
/// overlay window's.
///
/// A pass of its own rather than more queries in the frames' batches: those hold 4,096 rows, a
/// few of whose queries would fall one to a page of the second table. In the frames' batches
/// the second cut cost a million rows' search 1.4–4 s; in batches of an overlay pass's
/// 131,072 rows, bench/RESULTS.md ("The corner windows in a second cut of the frames").
extension CandidateSearch {
    /// The frames cut into other pieces, and the cut.
    struct InterleavedIndex: Sendable {
        let index: MultiIndexHash
        let bits: InterleavedBits
        /// The cuts probed before this one (the frame index's aside), whose hits this one
        /// leaves out.
        let earlier: [InterleavedBits]
    }

    /// The table of every row's frame in `cut` of the frame index's pieces, built on `threads`
    /// threads (from a thread that may block), with the cuts the plan's `interleavedCuts` list
    /// before it: their hits are left out of this one's.
    func interleavedIndex(_ cut: InterleavedBits.Cut, threads: Int) -> InterleavedIndex {
        let pieces = frameIndex.pieceBits.count, bits = InterleavedBits.cut(cut, pieces: pieces)
        let cuts = hashes.plan.interleavedCuts
        let earlier = cuts[..<(cuts.firstIndex(of: cut) ?? cuts.endIndex)].map { InterleavedBits.cut($0, pieces: pieces) }
        return InterleavedIndex(index: MultiIndexHash(hashes.frames.map { bits($0) }, pieces: pieces, threads: threads), bits: bits, earlier: earlier)
    }

    /// One row's `interleavedCropWindows` against the table, query by query: for plans the
    /// batches do not serve.
    func searchInterleaved(_ interleaved: InterleavedIndex, row a: Int, pieceRadius: Int, into found: inout [Candidate]) {
        let plan = hashes.plan
        for k in plan.interleavedCropWindows where hashes.hasWindow(a, k) {
            let window = hashes.window(a, k)
            interleaved.index.forEachNeighbour(of: interleaved.bits(window), within: plan.cropRadius, pieceRadius: pieceRadius) { b, _ in
                if isInterleavedOnly(window, frame: b, of: a, in: interleaved, pieceRadius: pieceRadius) {
                    found.append(Candidate(a: Int32(a), b: Int32(b), slotA: UInt8(k + 1), slotB: 0))
                }
            }
        }
    }

    /// Whether the hit `b` of `interleaved` for a window of row `a` is one no earlier pass
    /// found: another row, and no piece of the frame index's cut, or of an earlier interleaved
    /// cut, within `pieceRadius`.
    @inline(__always)
    func isInterleavedOnly(_ window: UInt64, frame b: Int, of a: Int, in interleaved: InterleavedIndex, pieceRadius: Int) -> Bool {
        let pieces = frameIndex.pieceBits.count, frame = hashes.frames[b]
        guard b != a, !MultiIndexHash.agreeOnAPiece(window, frame, pieces: pieces, within: pieceRadius) else { return false }
        return !interleaved.earlier.contains { MultiIndexHash.agreeOnAPiece($0(window), $0(frame), pieces: pieces, within: pieceRadius) }
    }
}
