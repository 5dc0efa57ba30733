@testable import Coordinator
import Analysis
import Testing

@Suite("Grouping")
struct GrouperTests {
    func photo(_ id: Int64, _ path: String, sha: UInt8, pHash: UInt64, dHash: UInt64 = 0, pixels: Int = 100, size: Int64 = 1000) -> GroupingPhoto {
        GroupingPhoto(id: id, path: path, sha256: [UInt8](repeating: sha, count: 32), pHash: pHash, dHash: dHash,
                      width: pixels, height: pixels, fileSize: size, sharpness: 1)
    }

    @Test("identical bytes form an exact group; look-alikes a near group with the largest as keeper")
    func kinds() {
        let photos = [
            photo(1, "/a/orig.jpg", sha: 1, pHash: 0b1111, pixels: 4000),
            photo(2, "/a/copy.jpg", sha: 1, pHash: 0b1111, pixels: 4000),
            photo(3, "/b/one.jpg", sha: 2, pHash: 0xFFFF_0000, pixels: 100),
            photo(4, "/b/small.jpg", sha: 3, pHash: 0xFFFF_0007, pixels: 50),
            photo(5, "/c/alone.jpg", sha: 4, pHash: 0x0F0F_0F0F_0F0F_0F0F),
        ]
        let groups = Grouper(threshold: 10).groups(of: photos)
        #expect(groups.count == 2)
        let exact = groups.first { $0.kind == .exact }
        #expect(exact?.members.map(\.photoID).sorted() == [1, 2])
        #expect(exact?.members.allSatisfy { $0.distance == 0 } == true)
        let near = groups.first { $0.kind == .near }
        #expect(near?.keeper == 3)
        #expect(near?.members.first { $0.photoID == 4 }?.distance == 3)
    }

    @Test("the dHash check keeps pHash look-alikes with different structure apart")
    func dHashCheck() {
        let photos = [photo(1, "/x", sha: 1, pHash: 0, dHash: 0), photo(2, "/y", sha: 2, pHash: 1, dHash: .max)]
        #expect(Grouper(threshold: 10).groups(of: photos).isEmpty)
    }

    @Test("multi-index candidates find every pair brute force finds")
    func candidatesAreComplete() {
        var generator = SplitMix64(seed: 5)
        var hashes: [UInt64] = (0..<300).map { _ in generator.next() }
        // Plant close pairs at every distance up to the threshold.
        for d in 0...12 {
            var mask: UInt64 = 0
            while mask.nonzeroBitCount < d { mask |= 1 << (generator.next() % 64) }
            hashes.append(hashes[d] ^ mask)
        }
        for threshold in [4, 8, 10, 12] {
            let grouper = Grouper(threshold: threshold)
            var found = Set<[Int]>()
            grouper.forEachCandidatePair(hashes) { a, b in
                if PerceptualHash.distance(hashes[a], hashes[b]) <= threshold { found.insert([a, b]) }
            }
            var expected = Set<[Int]>()
            for a in hashes.indices { for b in (a + 1)..<hashes.count where PerceptualHash.distance(hashes[a], hashes[b]) <= threshold { expected.insert([a, b]) } }
            #expect(found == expected, "threshold \(threshold)")
            #expect(!expected.isEmpty)
        }
    }

    @Test("keeper: most pixels, then largest file")
    func keeper() {
        let grouper = Grouper()
        #expect(grouper.isBetterKeeper(photo(1, "/a", sha: 1, pHash: 0, pixels: 200), than: photo(2, "/b", sha: 2, pHash: 0, pixels: 100)))
        #expect(grouper.isBetterKeeper(photo(1, "/a", sha: 1, pHash: 0, size: 2000), than: photo(2, "/b", sha: 2, pHash: 0, size: 1000)))
        #expect(!grouper.isBetterKeeper(photo(1, "/a", sha: 1, pHash: 0, size: 1000), than: photo(2, "/b", sha: 2, pHash: 0, size: 2000)))
    }
}
