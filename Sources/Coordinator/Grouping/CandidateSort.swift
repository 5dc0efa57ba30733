/// Candidates sorted into `Grouper.candidateOrder` by a radix sort on their sort keys: at a
/// million photos the judge sorts 4.6 million candidates, and the comparison sort took about a
/// second of one thread with the other core idle.
enum CandidateSort {
    /// `candidates` in `Grouper.candidateOrder`.
    static func sorted(_ candidates: [Candidate]) -> [Candidate] {
        let count = candidates.count
        guard count > 1 else { return candidates }
        precondition(count < Int(UInt32.max), "too many candidates for one sort")
        // The order's key as two words: the pair, then (slot of the pair's first photo, slot of
        // the other, named from the second photo) in 17 bits.
        var keys = [SortEntry](unsafeUninitializedCapacity: count) { buffer, initialized in
            for (index, candidate) in candidates.enumerated() {
                let pair = Grouper.pairKey(candidate)
                let slots = candidate.a <= candidate.b
                    ? UInt32(candidate.slotA) << 9 | UInt32(candidate.slotB) << 1
                    : UInt32(candidate.slotB) << 9 | UInt32(candidate.slotA) << 1 | 1
                buffer[index] = SortEntry(pair: pair, slots: slots, index: UInt32(index))
            }
            initialized = count
        }
        var spare = keys
        // Least significant digit first, 16 bits a pass; a digit every key shares is skipped
        // (the upper bits of each photo's row, below a few million photos).
        var varying = (pair: UInt64(0), slots: UInt32(0))
        let first = keys[0]
        for entry in keys {
            varying.pair |= entry.pair ^ first.pair
            varying.slots |= entry.slots ^ first.slots
        }
        keys.withUnsafeMutableBufferPointer { keys in
            spare.withUnsafeMutableBufferPointer { spare in
                var source = keys, target = spare
                var counts = [Int](repeating: 0, count: 1 << 16)
                func pass(_ digit: (SortEntry) -> Int) {
                    for index in counts.indices { counts[index] = 0 }
                    for entry in source { counts[digit(entry)] += 1 }
                    var start = 0
                    for index in counts.indices { (counts[index], start) = (start, start + counts[index]) }
                    for entry in source {
                        let place = digit(entry)
                        target[counts[place]] = entry
                        counts[place] += 1
                    }
                    swap(&source, &target)
                }
                for shift in [0, 16] where (varying.slots >> UInt32(shift)) & 0xFFFF != 0 {
                    pass { Int(truncatingIfNeeded: ($0.slots >> UInt32(shift)) & 0xFFFF) }
                }
                for shift in [0, 16, 32, 48] where (varying.pair >> UInt64(shift)) & 0xFFFF != 0 {
                    pass { Int(truncatingIfNeeded: ($0.pair >> UInt64(shift)) & 0xFFFF) }
                }
                // An odd number of passes leaves the sorted keys in the spare buffer.
                if source.baseAddress != keys.baseAddress { _ = keys.update(fromContentsOf: source) }
            }
        }
        spare = []  // let go before the sorted copy is made: at a million photos each is 74 MB
        return keys.map { candidates[Int($0.index)] }
    }

    private struct SortEntry {
        var pair: UInt64
        var slots: UInt32
        var index: UInt32
    }
}
