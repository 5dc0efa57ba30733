/// Sorting the packed keys `LayoutThumbnail.ranks` makes (a gray level's bits above its
/// index): a bucket sort over the range the keys' values span, then an insertion sort that only
/// ever moves a key within its bucket. The lower 32 bits are the indexes, already ascending,
/// and the buckets are filled in that order, so equal values stay in index order.
///
/// The buckets divide the span between the smallest and the largest value into twice as many
/// as there are keys, so nearly every bucket holds one key or none whatever the window's
/// contrast. Buckets of one whole gray level each (until the forty-sixth session) held a
/// dozen keys of a dull window, and the insertion sort moving them was half of this sort's time
/// (perf, a million photos' grouping: 8–12% of all samples in this sort). Keys whose upper
/// halves are not all finite, non-negative floats (never gray levels) are bucketed by whole
/// upper half instead. A window whose cells are all equal is already in order.
///
/// For the 144 cells a comparison window has, several times faster than the standard library's
/// sort (which allocates a merge buffer and was a tenth of grouping's time at a million photos)
/// and faster than a byte-wise radix sort (four passes over 256 counters).
enum SortKeys {
    /// Sorts `keys`, whose lower 32 bits ascend in the order given.
    static func sortByUpperHalf(_ keys: inout [UInt64]) {
        var spare = [UInt64](repeating: 0, count: keys.count)
        keys.withUnsafeMutableBufferPointer { keys in
            spare.withUnsafeMutableBufferPointer { sortByUpperHalf(keys, spare: $0) }
        }
    }

    /// The same in place, `spare` (as long as `keys`) its scratch.
    static func sortByUpperHalf(_ keys: UnsafeMutableBufferPointer<UInt64>, spare: UnsafeMutableBufferPointer<UInt64>) {
        let count = keys.count
        guard count > 1 else { return }
        precondition(spare.count >= count && count < 1 << 30)
        var lowest = UInt32.max, highest: UInt32 = 0
        for key in keys {
            let upper = upperHalf(key)
            lowest = min(lowest, upper)
            highest = max(highest, upper)
        }
        guard lowest < highest else { return }  // one value: the indexes already ascend
        let buckets = 2 * count
        // Finite, non-negative floats (sign bit clear, below infinity's pattern) order as
        // their values do, and a linear map of the values keeps that order: truncation,
        // rounding and `min` never reverse two values.
        let asFloats = highest < Float.infinity.bitPattern
        let low = Double(Float(bitPattern: lowest)), scale = Double(buckets - 1) / (Double(Float(bitPattern: highest)) - low)
        let last = Double(buckets - 1)
        @inline(__always) func bucket(_ key: UInt64) -> Int {
            let upper = upperHalf(key)
            guard asFloats else { return Int((UInt64(upper - lowest) &* UInt64(buckets - 1)) / UInt64(highest - lowest)) }
            return Int(min(last, (Double(Float(bitPattern: upper)) - low) * scale))
        }
        // The counters, then each key's bucket (worked out once, for the count and the scatter).
        withUnsafeTemporaryAllocation(of: Int.self, capacity: buckets + 1 + count) { scratch in
            let starts = UnsafeMutableBufferPointer(rebasing: scratch[...buckets])
            let bucketOf = UnsafeMutableBufferPointer(rebasing: scratch[(buckets + 1)...])
            starts.initialize(repeating: 0)
            for index in 0..<count {
                let bucket = bucket(keys[index])
                bucketOf[index] = bucket
                starts[bucket &+ 1] &+= 1
            }
            for index in 1...buckets { starts[index] &+= starts[index &- 1] }
            for index in 0..<count {
                let bucket = bucketOf[index]
                spare[starts[bucket]] = keys[index]
                starts[bucket] &+= 1
            }
        }
        // Back in order: nearly every key is past the one before it (kept in a register rather
        // than loaded again from where it was just stored); the few others move back within
        // their bucket, and the largest so far stays last.
        var previous = spare[0]
        keys[0] = previous
        for index in 1..<count {
            let key = spare[index]
            guard key < previous else {
                keys[index] = key
                previous = key
                continue
            }
            var slot = index
            while slot > 0 && keys[slot &- 1] > key { keys[slot] = keys[slot &- 1]; slot &-= 1 }
            keys[slot] = key
        }
    }

    @inline(__always)
    private static func upperHalf(_ key: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: key >> 32) }

    /// Packs `count` gray levels (`value(index)`) with their indexes into `keys`, a level's
    /// bits above its index, and sorts them (`sortByUpperHalf`, `spare` its scratch): the
    /// levels ascending, equal ones in index order. Gray levels are never negative; anything at
    /// or under zero (-0 too) sorts as +0. Read a key back with `value(of:)` and `index(of:)`.
    @inline(__always)
    static func sortLevels(count: Int, _ value: (Int) -> Float, keys: UnsafeMutableBufferPointer<UInt64>,
                           spare: UnsafeMutableBufferPointer<UInt64>) {
        precondition(count < 1 << 32 && keys.count >= count)
        for index in 0..<count {
            let level = value(index)
            keys[index] = UInt64((level > 0 ? level : 0).bitPattern) << 32 | UInt64(index)
        }
        sortByUpperHalf(UnsafeMutableBufferPointer(rebasing: keys[..<count]), spare: spare)
    }

    /// The gray level a key of `sortLevels` holds (as sorted: at least +0).
    @inline(__always)
    static func value(of key: UInt64) -> Float { Float(bitPattern: UInt32(truncatingIfNeeded: key >> 32)) }

    /// The index a key of `sortLevels` holds.
    @inline(__always)
    static func index(of key: UInt64) -> Int { Int(truncatingIfNeeded: key & 0xFFFF_FFFF) }
}
