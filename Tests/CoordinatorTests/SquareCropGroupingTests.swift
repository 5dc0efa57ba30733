@testable import Coordinator
import Analysis
import Testing

/// Rules 44 (`CentreSquare`): a copy cropped to the square centred in a wide or tall frame groups
/// with its photo as near, found through the photo's centre square; other pictures' squares do
/// not; on photos analysed for real.
@Suite("Square crops", .timeLimit(.minutes(5)))
struct SquareCropGroupingTests {
    /// A 16:9 photo and a tall 9:16 one: squares that keep 56% of the long side, past every window.
    static let wide = SyntheticPhoto.make(seed: 91, width: 1280, height: 720)
    static let tall = SyntheticPhoto.make(seed: 92, width: 540, height: 960)

    static func square(_ image: RGBImage) -> RGBImage {
        let side = min(image.width, image.height)
        return image.cropped(x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
    }

    @Test("square crops of a wide and a tall photo, one resized, are near their photo and grouped with it")
    func copies() throws {
        let wide = try GroupingPhoto.analysed(1, "/a/wide.jpg", Self.wide)
        let wideSquare = try GroupingPhoto.analysed(2, "/a/wide-square.jpg", Self.square(Self.wide).resized(width: 480, height: 480))
        let tall = try GroupingPhoto.analysed(3, "/b/tall.jpg", Self.tall)
        let tallSquare = try GroupingPhoto.analysed(4, "/b/tall-square.jpg", Self.square(Self.tall))
        // The premise: nothing but the centre square pairs them.
        for (photo, copy) in [(wide, wideSquare), (tall, tallSquare)] {
            #expect(PerceptualHash.distance(photo.pHash, copy.pHash) > Grouper().threshold)
            #expect(photo.windowPHashes.allSatisfy { PerceptualHash.distance($0, copy.pHash) > CandidatePlan().cropRadius })
            let square = try #require(photo.squarePHash)
            #expect(PerceptualHash.distance(square, copy.pHash) <= CandidatePlan().frameRadius)
            #expect(copy.squarePHash == nil, "a square frame has no centre square of its own")
        }
        let pairing = Grouper.Pairing(slotA: Int(Candidate.squareSlot), slotB: 0)
        #expect(PairJudge().relation(wide, wideSquare, pairing) == .near)
        #expect(PairJudge().relation(tall, tallSquare, pairing) == .near)

        let photos = [wide, wideSquare, tall, tallSquare]
        let groups = Grouper().groups(of: photos)
        #expect(Set(groups.map { Set($0.members.map(\.photoID)) }) == [[1, 2], [3, 4]] && groups.allSatisfy { $0.kind == .near }, "\(groups)")
        var without = Grouper()
        without.plan.squares = false
        #expect(without.groups(of: photos).isEmpty, "found by the centre squares alone")
    }

    @Test("other pictures cropped to a square are nothing to the photo; a square of another shot is not a copy")
    func others() throws {
        let wide = try GroupingPhoto.analysed(1, "/a/wide.jpg", Self.wide)
        let pairing = Grouper.Pairing(slotA: Int(Candidate.squareSlot), slotB: 0)
        for seed in [93, 94, 95] as [UInt64] {
            let other = try GroupingPhoto.analysed(2, "/b/other.jpg", Self.square(SyntheticPhoto.make(seed: seed, width: 1280, height: 720)))
            #expect(PairJudge().relation(wide, other, pairing) != .near, "seed \(seed)")
        }
        // The same view with part of the scene lit differently, cropped to a square: another shot.
        let shot = try GroupingPhoto.analysed(3, "/a/wide-2.jpg", Self.square(VignetteGroupingTests.relit(Self.wide)))
        #expect(PairJudge().relation(wide, shot, pairing) != .near)
        #expect(Grouper().groups(of: [wide, shot]).allSatisfy { $0.kind == .similar })
    }
}
