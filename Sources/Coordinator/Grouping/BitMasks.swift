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
