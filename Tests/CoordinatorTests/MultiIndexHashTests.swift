@testable import Coordinator
import Analysis
import Testing

@Suite("Multi-index hashing", .timeLimit(.minutes(5)))
struct MultiIndexHashTests {
    /// Clustered hashes (copies a few bits from a few centres) plus uniform ones: buckets of
    /// every size, and many pairs near every radius.
    static func hashes(_ count: Int, seed: UInt64) -> [UInt64] {
        var random = SplitMix64(seed: seed)
        let centres = (0..<20).map { _ in random.next() }
        return (0..<count).map { i in
            guard i % 3 != 0 else { return random.next() }
            var hash = centres[Int(random.next() % 20)]
            for _ in 0..<Int(random.next() % 14) { hash ^= 1 << (random.next() % 64) }
            return hash
        }
    }

    @Test("finds exactly the hashes a brute-force scan finds, each once, at every piece count and radius",
          arguments: [3, 4, 5, 8])
    func exact(pieces: Int) {
        let stored = Self.hashes(3000, seed: UInt64(pieces))
        let index = MultiIndexHash(stored, pieces: pieces, threads: 2)
        for radius in [0, 3, 8, 10] {
            for query in Self.hashes(60, seed: 99) + stored.prefix(40) {
                var found: [Int] = []
                index.forEachNeighbour(of: query, within: radius) { id, distance in
                    found.append(id)
                    #expect(distance == (stored[id] ^ query).nonzeroBitCount)
                }
                let expected = stored.indices.filter { (stored[$0] ^ query).nonzeroBitCount <= radius }
                #expect(found.sorted() == expected, "pieces \(pieces), radius \(radius)")
            }
        }
    }

    @Test("tables built on several threads are the tables one thread builds", arguments: [3, 5, 8])
    func threadedBuild(pieces: Int) {
        let stored = Self.hashes(5000, seed: 11)
        let ids = stored.indices.map { Int32(7 + 3 * $0) }
        let one = MultiIndexHash(stored, ids: ids, pieces: pieces)
        for threads in [2, 3, 8] {
            let several = MultiIndexHash(stored, ids: ids, pieces: pieces, threads: threads)
            #expect(several.offsets == one.offsets && several.offsetStart == one.offsetStart, "\(threads) threads")
            #expect(several.occupied == one.occupied && several.occupiedStart == one.occupiedStart, "\(threads) threads")
            #expect(several.bucketHashes == one.bucketHashes && several.bucketIDs == one.bucketIDs, "\(threads) threads")
        }
        // Every bucket holds its key's hashes, in input order: the layout the search reads.
        let key = { (hash: UInt64, piece: Int) in Int((hash >> UInt64(one.pieceShifts[piece])) & ((1 << UInt64(one.pieceBits[piece])) - 1)) }
        for piece in 0..<pieces {
            var expected = [Int](repeating: 0, count: 1 << one.pieceBits[piece])
            for hash in stored { expected[key(hash, piece)] += 1 }
            let offsets = one.offsets[one.offsetStart[piece]...]
            for k in [0, 1, key(stored[0], piece), key(stored[4999], piece)] {
                let start = piece * stored.count + Int(offsets[offsets.startIndex + k]), end = piece * stored.count + Int(offsets[offsets.startIndex + k + 1])
                #expect(end - start == expected[k])
                #expect(one.bucketHashes[start..<end].allSatisfy { key($0, piece) == k })
                let occupied = one.occupied[one.occupiedStart[piece] + k >> 6] >> UInt64(k & 63) & 1 == 1
                #expect(occupied == (expected[k] > 0))
            }
        }
    }

    @Test("a batch of queries finds what each query finds alone, with hashes numbered by `ids`",
          arguments: [3, 4, 8])
    func batches(pieces: Int) {
        let stored = Self.hashes(4000, seed: 5)
        // Numbered 10,000 past their index: the numbers reported are the ids given.
        let index = MultiIndexHash(stored, ids: stored.indices.map { Int32(10_000 + $0) }, pieces: pieces)
        let queries = Self.hashes(80, seed: 7) + stored.prefix(40)
        let radii = queries.indices.map { UInt8([4, 8, 10][$0 % 3]) }
        var scratch = MultiIndexHash.ProbeScratch()
        for pieceRadius in 0...2 {
            var batched = Set<[Int]>()
            index.forEachNeighbour(ofBatch: queries, radii: radii, pieceRadius: pieceRadius, scratch: &scratch) { query, id, distance in
                #expect(batched.insert([query, id]).inserted, "each hash once per query")
                #expect(distance == (stored[id - 10_000] ^ queries[query]).nonzeroBitCount)
            }
            var alone = Set<[Int]>()
            for (query, hash) in queries.enumerated() {
                index.forEachNeighbour(of: hash, within: Int(radii[query]), pieceRadius: pieceRadius) { id, _ in alone.insert([query, id]) }
            }
            var expected = Set<[Int]>()
            for (query, hash) in queries.enumerated() {
                for (position, candidate) in stored.enumerated()
                where (candidate ^ hash).nonzeroBitCount <= Int(radii[query]) && MultiIndexHash.agreeOnAPiece(candidate, hash, pieces: pieces, within: pieceRadius) {
                    expected.insert([query, 10_000 + position])
                }
            }
            #expect(expected.count > 50, "the queries have neighbours")
            #expect(batched == expected, "pieces \(pieces), piece radius \(pieceRadius)")
            #expect(alone == expected, "pieces \(pieces), piece radius \(pieceRadius)")
        }
    }

    @Test("the piece count follows 64 / log2(n)")
    func pieceCount() {
        #expect(MultiIndexHash.pieceCount(for: 1_000_000) == 3)
        #expect(MultiIndexHash.pieceCount(for: 65_536) == 4)
        #expect(MultiIndexHash.pieceCount(for: 10) == 8)
    }

    @Test("radius split by the generalised pigeonhole principle")
    func radii() {
        let index = MultiIndexHash([1, 2, 3], pieces: 4)
        #expect(index.pieceRadii(for: 10) == [2, 2, 2, 1])
        #expect(index.pieceRadii(for: 8) == [2, 1, 1, 1])
        #expect(index.pieceRadii(for: 2) == [0, 0, 0, -1])
    }
}
