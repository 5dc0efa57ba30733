@testable import Coordinator
import Analysis
import Foundation
import Testing

/// A crop whose one confirming pairing a large library's probes miss (`CandidatePlan.returns`):
/// search pairs it with its original through pairings that do not confirm it, or not at all,
/// and the two are folder neighbours. `Grouper.similarNeighbours` judges such a pair on every
/// pairing within the search's radii, so it is near, as a small library's search makes it.
@Suite("Neighbours the probes left short", .timeLimit(.minutes(5)))
struct ProbedNeighboursTests {
    typealias Scene = RegisteredCropsTests.Scene

    @Test("a crop 6 bits from its window, two bits in each of three pieces, is grouped near with its original beside it")
    func cropMissedByTheProbes() throws {
        let scene = Scene(seed: 23), width = RegisteredCropsTests.width, height = RegisteredCropsTests.height
        let original = try GroupingPhoto.analysed(1, "/shoot/a.jpg", RegisteredCropsTests.render(scene))
        // The 90% window at (5%, 5%), saved at its own size: window 12 of the original.
        var crop = try GroupingPhoto.analysed(2, "/shoot/b.jpg", RegisteredCropsTests.render(scene, width: width * 9 / 10, height: height * 9 / 10) { u, v in
            (0.05 + 0.9 * u, 0.05 + 0.9 * v)
        })
        // Its frame's hash 6 bits from the window's, two in each piece of a 3-piece table (bits
        // 0–21, 22–42, 43–63): within the crop radius, met by no probe at piece radius 1.
        crop.pHash = original.windowPHashes[12] ^ (0b11 | 0b11 << 22 | 0b11 << 43)
        crop.mirrorPHash = nil
        crop.contentBox = nil
        let missed = Grouper.Pairing(slotA: 13, slotB: 0)
        try #require(Self.largeLibrary.planWithThreshold.pairingsWithinReach(original, crop).contains(missed))
        try #require(PerceptualHash.distance(original.pHash, crop.pHash) <= SimilarNeighbours().hashRadius, "folder neighbours close enough to be looked at")
        try Self.expectNearThroughNeighbours(original, crop, missed: missed)
    }

    /// A large library's grouper: tables of 3 pieces.
    static var largeLibrary: Grouper {
        var grouper = Grouper()
        grouper.plan.pieces = 3
        return grouper
    }

    /// The premises (the probes miss `missed`, what they return does not make the pair near,
    /// `missed` alone does) and that the two are grouped near all the same.
    static func expectNearThroughNeighbours(_ original: GroupingPhoto, _ crop: GroupingPhoto, missed: Grouper.Pairing) throws {
        let grouper = largeLibrary, plan = grouper.planWithThreshold
        try #require(!plan.returns(missed, original, crop, pieces: 3), "the premise: the probes miss \(missed)")
        let probed = plan.probedPairings(original, crop, pieces: 3)
        var cache = LayoutCellCache(capacity: 0)
        try #require(probed.isEmpty || PairJudge().relation(original, crop, pairings: probed, rows: (0, 1), cache: &cache) != .near,
                     "the premise: what the probes return does not make them near: \(probed)")
        try #require(PairJudge().relation(original, crop, pairings: [missed], rows: (0, 1), cache: &cache) == .near)

        let groups = try grouper.groups(of: [original, crop], shouldStop: { false })
        #expect(groups.map(\.kind) == [.near], "\(groups)")
        #expect(groups.first.map { Set($0.members.map(\.photoID)) } == [original.id, crop.id])
    }

    /// Rules 36: the whole frames of a crop of one side are such a pairing too, since registration
    /// starts from them (rules 35, `PairJudge.startsRegistration`), though they confirm nothing
    /// by themselves.
    @Test("a 5% crop of one side of gravel, its frame 6 bits off and missed by the probes, is grouped near with its original beside it")
    func cropOfOneSideMissedByTheProbes() throws {
        var original = try GroupingPhoto.analysed(1, "/shoot/a.jpg", TexturedCropsTests.gravel(seed: 7, crop: (0, 0, 512, 512)))
        var crop = try GroupingPhoto.analysed(2, "/shoot/b.jpg", TexturedCropsTests.gravel(seed: 7, crop: (26, 0, 486, 512)))
        crop.pHash = original.pHash ^ (0b11 | 0b11 << 22 | 0b11 << 43)
        // Every window hash far from every other hash (masks 32 bits apart), so that the whole
        // frames are the one pairing within reach: no other that confirms or registers sends
        // the pair to be judged again.
        original.windowPHashes = original.windowPHashes.map { $0 ^ 0x5555_5555_5555_5555 }
        crop.windowPHashes = crop.windowPHashes.map { $0 ^ 0x3333_3333_3333_3333 }
        original.mirrorPHash = nil
        crop.mirrorPHash = nil
        crop.contentBox = nil
        let frames = Grouper.Pairing(slotA: 0, slotB: 0), reach = Self.largeLibrary.planWithThreshold.pairingsWithinReach(original, crop)
        try #require(reach == [frames], "\(reach)")
        try #require(PairJudge.startsRegistration(frames, original, crop))
        try Self.expectNearThroughNeighbours(original, crop, missed: frames)
    }
}
