@testable import Coordinator
import Analysis
import Testing

@Suite("Corner windows in other cuts of the frames", .timeLimit(.minutes(5)))
struct InterleavedSearchTests {
    @Test("interleaving deals bit i to piece i mod m, and keeps every distance")
    func interleaving() {
        for m in 3...8 {
            let bits = InterleavedBits.cut(.dealt, pieces: m)
            let pieceBits = MultiIndexHash.pieceBits(m)
            let starts = pieceBits.indices.map { pieceBits[..<$0].reduce(0, +) }
            for i in 0..<64 {
                #expect(bits(1 << UInt64(i)) == 1 << UInt64(starts[i % m] + i / m), "bit \(i) at \(m) pieces")
            }
        }
        var random = SplitMix64(seed: 5)
        let bits = InterleavedBits.cut(.dealt, pieces: 3)
        for _ in 0..<1_000 {
            let x = random.next(), y = random.next()
            #expect((bits(x) ^ bits(y)).nonzeroBitCount == (x ^ y).nonzeroBitCount)
        }
        // A pair whose six differing bits leave two in each piece of the first cut is missed
        // there at piece radius 1, and found in the second.
        let x: UInt64 = 0x0123_4567_89AB_CDEF, y = x ^ (0b11 | 0b11 << 22 | 0b11 << 43)
        #expect(!MultiIndexHash.agreeOnAPiece(x, y, pieces: 3, within: 1))
        #expect(MultiIndexHash.agreeOnAPiece(bits(x), bits(y), pieces: 3, within: 1))
    }

    @Test("the crossed cut keeps every distance, takes a third of each piece from each run and each dealt piece, and finds a pair both earlier cuts miss")
    func crossing() {
        for m in 3...8 {
            let crossed = InterleavedBits.cut(.crossed, pieces: m)
            let places = (0..<64).map { (crossed(1 << UInt64($0)) as UInt64).trailingZeroBitCount }
            #expect(Set(places).count == 64, "a permutation of the bits at \(m) pieces")
        }
        let crossed = InterleavedBits.cut(.crossed, pieces: 3), dealt = InterleavedBits.cut(.dealt, pieces: 3)
        func piece(_ place: Int) -> Int { place < 22 ? 0 : place < 43 ? 1 : 2 }
        for target in 0..<3 {
            let bits = (0..<64).filter { piece((crossed(1 << UInt64($0)) as UInt64).trailingZeroBitCount) == target }
            for source in 0..<3 {
                #expect((7...8).contains(bits.filter { piece($0) == source }.count), "crossed piece \(target) from run \(source)")
                #expect((7...8).contains(bits.filter { piece((dealt(1 << UInt64($0)) as UInt64).trailingZeroBitCount) == source }.count),
                        "crossed piece \(target) from dealt piece \(source)")
            }
        }
        // Six differing bits, two in each piece of the first two cuts: 0, 1 in run 0, 22, 24
        // in run 1, 44, 47 in run 2; dealt, 0, 24 (i mod 3 = 0), 1, 22 and 44, 47. Crossed,
        // piece (run + i mod 3) mod 3, they fall 1, 4, 1: 0 alone, 22 alone.
        let x: UInt64 = 0x0F1E_2D3C_4B5A_6978
        let y = [0, 1, 22, 24, 44, 47].reduce(x) { $0 ^ 1 << UInt64($1) }
        func agree(_ bits: InterleavedBits?) -> Bool {
            MultiIndexHash.agreeOnAPiece(bits.map { $0(x) } ?? x, bits.map { $0(y) } ?? y, pieces: 3, within: 1)
        }
        #expect(!agree(nil) && !agree(dealt), "missed by the frame index's cut and the dealt one")
        #expect(agree(crossed), "found by the crossed cut")
    }

    @Test("the interleaved windows find, besides what the first cut finds, the crop pairings that agree within the piece radius on a piece of the second or third (the other windows at their narrower radius); each once; in a pass of their own, in batches and query by query, held or streamed",
          arguments: [true, false])
    func interleavedWindows(batched: Bool) throws {
        var plan = CandidatePlan(frameRadius: 9, cropWindows: [0, 4, 12], cropRadius: 8, overlayWindows: [0, 4, 24], overlayRadius: 5,
                                 pieces: 3, framePieceRadius: 1, windowPieceRadius: 1)
        plan.interleavedCropWindows = [0, 4]
        // The other crop window at a narrower radius, as large libraries search theirs.
        plan.narrowCropRadius = 6
        let (compact, all) = CandidateSearchTests.hashes(plan: plan, count: 400)
        let found = CandidateSearchTests.everyPairing(compact, batched: batched).candidates(threads: 2)
        let dealt = InterleavedBits.cut(.dealt, pieces: 3), crossed = InterleavedBits.cut(.crossed, pieces: 3)
        func agree(_ x: UInt64, _ y: UInt64) -> Bool { MultiIndexHash.agreeOnAPiece(x, y, pieces: 3, within: 1) }
        var expected = Set<Candidate>(), secondCutOnly = 0, thirdCutOnly = 0, narrowedOut = 0
        for a in all.indices {
            for b in all.indices where b != a {
                if b > a, (all[a][0] ^ all[b][0]).nonzeroBitCount <= plan.frameRadius, agree(all[a][0], all[b][0]) {
                    expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: 0, slotB: 0))
                }
                guard all[a].count > 1 else { continue }
                for k in plan.probedCropWindows where (all[a][k + 1] ^ all[b][0]).nonzeroBitCount <= plan.cropRadius {
                    guard (all[a][k + 1] ^ all[b][0]).nonzeroBitCount <= plan.cropRadius(ofWindow: k) else {
                        if agree(all[a][k + 1], all[b][0]) { narrowedOut += 1 }
                        continue
                    }
                    let first = agree(all[a][k + 1], all[b][0])
                    let interleaved = plan.interleavedCropWindows.contains(k)
                    let second = interleaved && agree(dealt(all[a][k + 1]), dealt(all[b][0]))
                    let third = interleaved && agree(crossed(all[a][k + 1]), crossed(all[b][0]))
                    if first || second || third { expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: UInt8(k + 1), slotB: 0)) }
                    if second && !first { secondCutOnly += 1 }
                    if third && !first && !second { thirdCutOnly += 1 }
                }
                guard b > a, all[b].count > 1 else { continue }
                for k in plan.overlayWindows where (all[a][k + 1] ^ all[b][k + 1]).nonzeroBitCount <= plan.overlayRadius && agree(all[a][k + 1], all[b][k + 1]) {
                    expected.insert(Candidate(a: Int32(a), b: Int32(b), slotA: UInt8(k + 1), slotB: UInt8(k + 1)))
                }
            }
        }
        #expect(secondCutOnly > 20, "the data has pairings only the second cut finds")
        #expect(thirdCutOnly > 5, "and pairings only the third finds")
        #expect(narrowedOut > 20, "the data has pairings of the narrowed window past its radius that the probes would meet")
        #expect(Set(found) == expected && found.count == expected.count, "each pairing once")
        // Streamed: the source hands out the probed windows.
        let streamed = try CandidateSearchTests.streamed(plan: plan, all, batched: batched)
        #expect(Set(streamed) == expected && streamed.count == expected.count)
    }

    @Test("the default plan probes the corner windows and the caption bands in the second and third cuts once the tables have 3 pieces, not before")
    func sizedPlan() {
        #expect(CandidatePlan().sized(for: 300_000).interleavedCropWindows.isEmpty)
        #expect(CandidatePlan().sized(for: 1_000_000).interleavedCropWindows == [0, 4, 20, 24, 53, 55])
        #expect(CandidatePlan().interleavedCuts == [.dealt, .crossed])
        #expect(CandidatePlan.interleavedWindowsLargeLibraries.allSatisfy(CandidatePlan().overlayWindows.contains), "held by the search's hashes")
    }
}
