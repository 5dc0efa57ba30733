/// Candidates sorted into `Grouper.candidateOrder` by a radix sort on their sort keys: at a
/// million photos the judge sorts 4.6 million candidates, and the comparison sort took about a
/// second of one thread with the other core idle (0.26 s this way).
///
/// Each candidate is packed into one 64-bit key that sorts in that order and holds all of it:
/// the pair's rows (24 bits each), the slot of the pair's first photo, the other's (7 bits
/// each: `code`), and whether it was named from the second photo: 63 bits. The judge reads the sorted
/// keys themselves (`SortedCandidates`), 8 bytes a candidate where the candidates took 12: on
/// plain graphics a library has many candidates a photo (the end-to-end library's 220,000
/// photos make millions), and a first version, a key and an index a candidate and a sorted
/// copy of the candidates, took that library's regroup from 0.55 to 1.05 GB. Libraries past
/// 2^24 photos, or slots past the codes, take the comparison sort.
enum CandidateSort {
    /// The candidates of all `parts` (as the search's threads hand them in) in
    /// `Grouper.candidateOrder`; each part is let go once its keys are made, so the sort
    /// never holds the candidates twice.
    static func sorted(parts: inout [[Candidate]]) -> SortedCandidates {
        let count = parts.reduce(0) { $0 + $1.count }
        guard count > 1, parts.allSatisfy(packs) else {
            let all = Array(parts.joined())
            parts = []
            return SortedCandidates(unpacked: all.sorted(by: Grouper.candidateOrder))
        }
        var keys: [UInt64] = []
        keys.reserveCapacity(count)
        for index in parts.indices {
            for candidate in parts[index] { keys.append(packed(candidate)) }
            parts[index] = []
        }
        parts = []
        var spare = [UInt64](repeating: 0, count: keys.count)
        // Least significant digit first, 16 bits a pass; a digit every key shares is skipped
        // (the upper bits of the rows, below millions of photos).
        var varying: UInt64 = 0
        for key in keys { varying |= key ^ keys[0] }
        keys.withUnsafeMutableBufferPointer { keys in
            spare.withUnsafeMutableBufferPointer { spare in
                var source = keys, target = spare
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 1 << 16) { counts in
                    for shift in stride(from: UInt64(0), to: 64, by: 16) where (varying >> shift) & 0xFFFF != 0 {
                        counts.initialize(repeating: 0)
                        for key in source { counts[Int(truncatingIfNeeded: (key >> shift) & 0xFFFF)] += 1 }
                        var start = 0
                        for digit in 0..<counts.count { (counts[digit], start) = (start, start + counts[digit]) }
                        for key in source {
                            let digit = Int(truncatingIfNeeded: (key >> shift) & 0xFFFF)
                            target[counts[digit]] = key
                            counts[digit] += 1
                        }
                        swap(&source, &target)
                    }
                }
                // An odd number of passes leaves the sorted keys in the spare buffer.
                if source.baseAddress != keys.baseAddress { _ = keys.update(fromContentsOf: source) }
            }
        }
        return SortedCandidates(packed: keys)
    }

    /// Rows below this pack into a key.
    static let rowLimit: Int32 = 1 << 24

    /// Whether every candidate of `candidates` packs into a key.
    private static func packs(_ candidates: [Candidate]) -> Bool {
        candidates.allSatisfy { candidate in
            candidate.a >= 0 && candidate.b >= 0 && candidate.a < rowLimit && candidate.b < rowLimit
                && code(candidate.slotA) != nil && code(candidate.slotB) != nil
        }
    }

    /// A candidate's key (it `packs`).
    private static func packed(_ candidate: Candidate) -> UInt64 {
        let slotA = code(candidate.slotA)!, slotB = code(candidate.slotB)!
        let first = UInt64(min(candidate.a, candidate.b)), second = UInt64(max(candidate.a, candidate.b))
        let slots = candidate.a <= candidate.b ? slotA << 8 | slotB << 1 : slotB << 8 | slotA << 1 | 1
        return first << 39 | second << 15 | slots
    }

    static func unpacked(_ key: UInt64) -> Candidate {
        let first = Int32(truncatingIfNeeded: key >> 39), second = Int32(truncatingIfNeeded: (key >> 15) & 0xFF_FFFF)
        let slotFirst = slot(key >> 8 & 0x7F), slotSecond = slot(key >> 1 & 0x7F)
        return key & 1 == 0 ? Candidate(a: first, b: second, slotA: slotFirst, slotB: slotSecond)
                            : Candidate(a: second, b: first, slotA: slotSecond, slotB: slotFirst)
    }

    /// Slots in 7 bits, in their order: windows as they are, the centre square, the turned
    /// frame, the mirror image and the content last (6 bits held them until the centre square).
    private static func code(_ slot: UInt8) -> UInt64? {
        switch slot {
        case Candidate.squareSlot: 61
        case Candidate.turnedSlot: 62
        case Candidate.mirrorSlot: 63
        case Candidate.contentSlot: 64
        case 0..<61: UInt64(slot)
        default: nil
        }
    }

    private static func slot(_ code: UInt64) -> UInt8 {
        switch code {
        case 61: Candidate.squareSlot
        case 62: Candidate.turnedSlot
        case 63: Candidate.mirrorSlot
        case 64: Candidate.contentSlot
        default: UInt8(code)
        }
    }
}

/// Candidates in `Grouper.candidateOrder`, as `CandidateSort` leaves them: packed keys, or the
/// candidates themselves when they did not pack.
struct SortedCandidates: Sendable {
    private let keys: [UInt64]
    private let candidates: [Candidate]

    init(packed keys: [UInt64]) {
        self.keys = keys
        candidates = []
    }

    init(unpacked candidates: [Candidate]) {
        keys = []
        self.candidates = candidates
    }

    var count: Int { keys.isEmpty ? candidates.count : keys.count }

    subscript(index: Int) -> Candidate {
        keys.isEmpty ? candidates[index] : CandidateSort.unpacked(keys[index])
    }

    /// All of them, for tests.
    var all: [Candidate] { (0..<count).map { self[$0] } }
}

/// The order candidates are judged in (`CandidateSort` sorts into it).
extension Grouper {
    /// The unordered pair of a candidate, as one sortable number.
    static func pairKey(_ candidate: Candidate) -> UInt64 {
        let a = UInt32(candidate.a), b = UInt32(candidate.b)
        return UInt64(min(a, b)) << 32 | UInt64(max(a, b))
    }

    /// Candidates by pair, then by their slots as seen from the pair's first photo, then that
    /// photo first: a total order. The search's threads hand in their candidates in whatever
    /// order they finish, and the judge goes through a pair's pairings in order (the first that
    /// confirms decides, unless it shows a change), so sorting by pair alone let one set of rows
    /// give groups that differed by a pair or two from run to run.
    static func candidateOrder(_ x: Candidate, _ y: Candidate) -> Bool {
        func key(_ c: Candidate) -> (UInt64, UInt8, UInt8, UInt8) {
            c.a <= c.b ? (pairKey(c), c.slotA, c.slotB, 0) : (pairKey(c), c.slotB, c.slotA, 1)
        }
        return key(x) < key(y)
    }
}
