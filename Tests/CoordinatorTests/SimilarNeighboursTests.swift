@testable import Coordinator
import Analysis
import Foundation
import Testing

/// Other shots of one moment that candidate search does not pair (too many pHash bits apart)
/// are found among neighbours: close in capture time, or next to each other in their folder.
@Suite("Similar neighbours", .timeLimit(.minutes(5)))
struct SimilarNeighboursTests {
    /// A smooth textured scene, seen `shift` of the frame to the right; `lit` brightens a patch
    /// of about 12% of the frame by 40% (part of the scene lit differently).
    static func scene(shift: Double = 0, lit: Bool = false) -> [UInt8] {
        (0..<1024).map { (index: Int) -> UInt8 in
            let x = (Double(index % 32) + 0.5) / 32 + shift, y = (Double(index / 32) + 0.5) / 32
            var value = 110 + 50 * sin(x * 19) * cos(y * 13) + 35 * sin((x + 2 * y) * 11)
            if lit && x > 0.45 && x < 0.8 && y > 0.15 && y < 0.5 { value *= 1.4 }
            return UInt8(max(0, min(255, value.rounded())))
        }
    }

    /// A photo whose window hashes match nothing (each its own), so that only its frame's
    /// pHash can make it a search candidate.
    static func photo(_ id: Int64, _ path: String, pHash: UInt64, time: Double? = nil, thumbnail: [UInt8] = scene()) -> GroupingPhoto {
        var windows: [UInt64] = []
        var seed = UInt64(id) &* 0x9E37_79B9_7F4A_7C15
        for _ in FeatureWindow.crops {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            windows.append(seed)
        }
        return GroupingPhoto(id: id, path: path, sha256: [UInt8(id)], pHash: pHash, dHash: 0, windowPHashes: windows,
                             thumbnail: thumbnail, width: 4000, height: 3000, fileSize: 4_000_000 + id, sharpness: 1, captureTime: time)
    }

    /// `hash` with its lowest `bits` bits flipped.
    static func flipped(_ hash: UInt64, _ bits: Int) -> UInt64 { hash ^ (bits == 64 ? .max : (1 << UInt64(bits)) - 1) }

    static let hash: UInt64 = 0x0F0F_3C3C_5A5A_9696

    @Test("neighbours: within the time window, next in the folder by name, at most perPhoto after each, close frames only")
    func pairs() {
        let photos = [
            Self.photo(0, "/a/IMG_0003.jpg", pHash: Self.hash),
            Self.photo(1, "/a/IMG_0001.jpg", pHash: Self.flipped(Self.hash, 20)),
            Self.photo(2, "/b/IMG_0002.jpg", pHash: Self.hash),                       // another folder
            Self.photo(3, "/a/IMG_0002.jpg", pHash: Self.flipped(Self.hash, 23)),     // past the radius
            Self.photo(4, "/c/1.jpg", pHash: Self.hash, time: 100),
            Self.photo(5, "/d/2.jpg", pHash: Self.hash, time: 102.5),                 // 2.5 s later, elsewhere
            Self.photo(6, "/c/3.jpg", pHash: Self.hash, time: 106),                   // 3.5 s after the one before
        ]
        let neighbours = SimilarNeighbours(window: 3)
        let pairs = neighbours.pairs(photos, representatives: Array(photos.indices)).map { [$0.0, $0.1] }
        // In the order met: in time first, then in the folder by name.
        #expect(pairs == [[4, 5], [1, 3], [0, 1]])
        // One neighbour after each: the first file of /a is not paired past the second.
        var one = neighbours
        one.perPhoto = 1
        one.hashRadius = 23
        #expect(one.pairs(photos, representatives: Array(photos.indices)).map { [$0.0, $0.1] } == [[4, 5], [1, 3], [0, 3]])
        // Rows name representatives: only they take part.
        #expect(neighbours.pairs(photos, representatives: [0, 2, 3]).isEmpty)
    }

    @Test("a panned frame with a patch lit differently, 16 bits from its scene: similar when next to it in the folder, nothing elsewhere")
    func folderNeighbours() throws {
        let original = Self.photo(1, "/shoot/DSC_0100.jpg", pHash: Self.hash)
        let copy = Self.photo(2, "/shoot/DSC_0100-small.jpg", pHash: Self.flipped(Self.hash, 2))
        let otherShot = Self.photo(3, "/shoot/DSC_0101.jpg", pHash: Self.flipped(Self.hash, 16), thumbnail: Self.scene(shift: 0.04, lit: true))
        let judge = PairJudge()
        #expect(judge.relation(original, otherShot, Grouper.Pairing(slotA: 0, slotB: 0)) == nil, "the frames alone do not confirm it")
        #expect(judge.similarShot(original, otherShot))

        let groups = Grouper().groups(of: [original, copy, otherShot])
        let near = try #require(groups.first { $0.kind == .near })
        #expect(Set(near.members.map(\.photoID)) == [1, 2])
        let similar = try #require(groups.first { $0.kind == .similar })
        #expect(Set(similar.members.map(\.photoID)) == [near.keeper, 3])

        // The same shot in another folder is no neighbour: candidate search alone cannot pair it.
        var elsewhere = otherShot
        elsewhere.path = "/other/DSC_0101.jpg"
        #expect(Grouper().groups(of: [original, copy, elsewhere]).allSatisfy { $0.kind != .similar })
    }

    @Test("neighbours in time: a frame 1.5 s later is similar, one 10 s later is not; different pictures never are")
    func timeNeighbours() {
        let first = Self.photo(1, "/x/a.jpg", pHash: Self.hash, time: 1_000)
        let next = Self.photo(2, "/y/b.jpg", pHash: Self.flipped(Self.hash, 16), time: 1_001.5, thumbnail: Self.scene(shift: 0.04))
        let later = Self.photo(3, "/z/c.jpg", pHash: Self.flipped(Self.hash, 16), time: 1_010, thumbnail: Self.scene(shift: 0.04))
        let groups = Grouper().groups(of: [first, next, later])
        #expect(groups.map(\.kind) == [.similar])
        #expect(Set(groups.first?.members.map(\.photoID) ?? []) == [1, 2])

        // Another picture taken a second later, its frame within the radius by chance: the layouts decide.
        let inverted = Self.scene().map { 255 - $0 }
        let stranger = Self.photo(4, "/x/d.jpg", pHash: Self.flipped(Self.hash, 12), time: 1_001, thumbnail: inverted)
        #expect(!PairJudge().similarShot(first, stranger))
    }

    @Test("the windows compared for neighbours are those whose pHashes come closest; rows without window hashes compare the nine of the 5% grid")
    func pairings() {
        var a = Self.photo(1, "/a/1.jpg", pHash: Self.hash), b = Self.photo(2, "/a/2.jpg", pHash: Self.flipped(Self.hash, 30))
        a.windowPHashes[12] = Self.flipped(b.pHash, 1)  // a's 13th window, 1 bit from b's frame
        b.windowPHashes[3] = Self.flipped(a.pHash, 2)   // b's 4th window, 2 bits from a's frame
        let pairings = PairJudge.neighbourPairings(a, b)
        #expect(pairings.count == PairJudge.neighbourPairingCount)
        #expect(Array(pairings.prefix(2)) == [Grouper.Pairing(slotA: 13, slotB: 0), Grouper.Pairing(slotA: 0, slotB: 4)])
        a.windowPHashes = []
        #expect(PairJudge.neighbourPairings(a, b).count == 2 * FeatureWindow.overlayWindows.count)
    }

    @Test("neighbours on plain backgrounds of other colours are other pictures, whatever their gray levels say")
    func plainColours() {
        func chroma(cb: UInt8, cr: UInt8) -> [UInt8] {
            [UInt8](repeating: cb, count: ChromaLayout.side * ChromaLayout.side) + [UInt8](repeating: cr, count: ChromaLayout.side * ChromaLayout.side)
        }
        var first = Self.photo(1, "/g/1.png", pHash: Self.hash), next = Self.photo(2, "/g/2.png", pHash: Self.flipped(Self.hash, 16), thumbnail: Self.scene(shift: 0.04, lit: true))
        first.chroma = chroma(cb: 110, cr: 170)
        next.chroma = chroma(cb: 111, cr: 171)
        #expect(!PairJudge.plainColoursDiffer(first, next))
        #expect(PairJudge().similarShot(first, next), "one moment: the same background")
        next.chroma = chroma(cb: 150, cr: 160)  // another colour, under the hue limit of a grade
        #expect(PairJudge.plainColoursDiffer(first, next))
        #expect(!PairJudge().similarShot(first, next))
    }
}
