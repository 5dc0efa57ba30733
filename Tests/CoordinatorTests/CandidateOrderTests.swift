@testable import Coordinator
import Analysis
import Testing

/// `Grouper.candidateOrder`: one set of candidates, in whatever order the search's threads hand
/// it in, sorts to one sequence, so the judge meets a pair's pairings in one order and one set
/// of rows always gives the same groups.
@Suite("Candidate order")
struct CandidateOrderTests {
    /// Pairs of a few photos, each with several pairings, named in either order.
    static let candidates: [Candidate] = {
        var out: [Candidate] = []
        for (a, b) in [(Int32(1), Int32(2)), (3, 1), (2, 3), (7, 4)] {
            for (slotA, slotB) in [(UInt8(0), UInt8(0)), (3, 0), (0, 5), (Candidate.mirrorSlot, 0), (Candidate.contentSlot, 2)] {
                out.append(Candidate(a: a, b: b, slotA: slotA, slotB: slotB))
            }
            // The same pairing named from the other photo.
            out.append(Candidate(a: b, b: a, slotA: 0, slotB: 3))
        }
        return out
    }()

    @Test("any arrival order sorts to one sequence, each pair's candidates together")
    func oneSequence() {
        var generator = SplitMix64(seed: 7)
        let reference = Self.candidates.sorted(by: Grouper.candidateOrder)
        for _ in 0..<50 {
            #expect(Self.candidates.shuffled(using: &generator).sorted(by: Grouper.candidateOrder) == reference)
        }
        let keys = reference.map(Grouper.pairKey)
        #expect(keys == keys.sorted(), "pairs lie together, in pair order")
    }

    @Test("the radix sort gives the order of the comparison sort, rows past 16 bits included, and past 2^24 (the comparison sort itself)",
          arguments: [Int32(300), 70_000, 16_000_000, 20_000_000])
    func radixSort(rows: Int32) {
        var generator = SplitMix64(seed: UInt64(rows))
        let slots: [UInt8] = [0, 1, 7, 49, Candidate.mirrorSlot, Candidate.contentSlot]
        var candidates = Self.candidates
        for _ in 0..<5_000 {
            let a = Int32.random(in: 0..<rows, using: &generator), b = Int32.random(in: 0..<rows, using: &generator)
            candidates.append(Candidate(a: a, b: b, slotA: slots.randomElement(using: &generator)!, slotB: slots.randomElement(using: &generator)!))
            // Some pairs again, with other pairings and named from the other end.
            if Bool.random(using: &generator) { candidates.append(Candidate(a: b, b: a, slotA: 0, slotB: slots.randomElement(using: &generator)!)) }
        }
        candidates.shuffle(using: &generator)
        let expected = candidates.sorted(by: Grouper.candidateOrder)
        // In parts, as the search's threads hand them in.
        var parts = [Array(candidates[..<1_000]), Array(candidates[1_000...])]
        #expect(CandidateSort.sorted(parts: &parts).all == expected)
        #expect(parts.isEmpty, "the candidates are let go once their keys are made")
        var none: [[Candidate]] = [], one = [[candidates[0]]]
        #expect(CandidateSort.sorted(parts: &none).all == [] && CandidateSort.sorted(parts: &one).all == [candidates[0]])
    }
}
