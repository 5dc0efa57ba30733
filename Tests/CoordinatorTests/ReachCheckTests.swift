@testable import Coordinator
import Analysis
import Foundation
import Testing

/// Near verdicts judged again on every pairing within reach (`Grouper.reachCheck`): the verdict
/// on a pair must not depend on which pairings a large library's probes happened to return.
@Suite("One verdict at any library size", .timeLimit(.minutes(5)))
struct ReachCheckTests {
    /// A textured scene; `lit`: a band along the top (18% of the height, 60% of the width) lit
    /// 20% brighter, with other noise: another shot of the moment.
    static func scene(lit: Bool = false) -> [UInt8] {
        var state: UInt64 = 7
        return (0..<1024).map { (index: Int) -> UInt8 in
            let x = (Double(index % 32) + 0.5) / 32, y = (Double(index / 32) + 0.5) / 32
            let waves: Double = 50 * sin(x * 19) * cos(y * 13)
            var value: Double = 110 + waves + 35 * sin((x + 2 * y) * 11)
            guard lit else { return UInt8(max(0, min(255, value.rounded()))) }
            if x > 0.2 && x < 0.8 && y < 0.18 { value *= 1.2 }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(max(0, min(255, Int(value.rounded()) + Int(state >> 33) % 17 - 8)))
        }
    }

    /// The 90% window in the top right corner, compared with the same window of the other photo.
    static let corner = Grouper.Pairing(slotA: 5, slotB: 5)
    static let frames = Grouper.Pairing(slotA: 0, slotB: 0)

    /// Photo `id`: every photo's frame has one pHash, window hashes 32 bits off it; `second`
    /// photos' windows are 32 bits off the first's but for the corner window: within reach of
    /// each other are the frames, and the corner window of both.
    func photo(_ id: Int64, thumbnail: [UInt8], second: Bool = false, pixels: Int = 4000) -> GroupingPhoto {
        var windows = [UInt64](repeating: second ? 0x0F0F_0F0F_0F0F_0F0F : 0xF0F0_F0F0_0F0F_0F0F, count: FeatureWindow.hashedCount)
        windows[Self.corner.slotA - 1] = 0xF0F0_F0F0_0F0F_0F0F
        return GroupingPhoto(id: id, path: "/shoot/\(id).jpg", sha256: [UInt8(id)], pHash: 0xF0F0_F0F0_F0F0_F0F0, dHash: 0,
                             windowPHashes: windows, thumbnail: thumbnail, width: pixels, height: pixels * 3 / 4,
                             fileSize: Int64(pixels), sharpness: 1)
    }

    @Test("a near verdict on the one window a large library's probes returned is judged again on every pairing within reach: another shot is similar, as in a small library")
    func otherShotIsSimilar() throws {
        let original = photo(1, thumbnail: Self.scene()), otherShot = photo(2, thumbnail: Self.scene(lit: true), second: true)
        let reach = CandidatePlan().pairingsWithinReach(original, otherShot)
        #expect(reach == [Self.frames, Self.corner])
        // The premise: the corner window alone says near (the lit band moves too few of its
        // ranks to be looked at), the frames show the change, and both together say similar.
        let judge = PairJudge()
        #expect(judge.relation(original, otherShot, Self.corner) == .near)
        var cache = LayoutCellCache(capacity: 0)
        #expect(judge.relation(original, otherShot, pairings: reach, rows: (0, 1), cache: &cache) == .similar)

        let checked = try Grouper().reachCheck([(key: 1, pairings: [Self.corner])], [original, otherShot], [0, 1],
                                               layouts: nil, features: nil, shouldStop: { false })
        #expect(checked.near.isEmpty && checked.similar == [1] && checked.apart.isEmpty, "\(checked)")
    }

    @Test("an edited copy judged on fewer pairings than reach stays near; a pair judged on every pairing in reach keeps its verdict unasked")
    func copiesKeepTheirVerdict() throws {
        let original = photo(1, thumbnail: Self.scene()), copy = photo(2, thumbnail: Self.scene(), second: true, pixels: 1000)
        let checked = try Grouper().reachCheck([(key: 1, pairings: [Self.corner])], [original, copy], [0, 1],
                                               layouts: nil, features: nil, shouldStop: { false })
        #expect(checked.near == [1] && checked.similar.isEmpty)
        // Nothing search left out: the verdict stands without another look (this pair is
        // similar when judged on both pairings).
        let otherShot = photo(2, thumbnail: Self.scene(lit: true), second: true)
        let unasked = try Grouper().reachCheck([(key: 1, pairings: [Self.frames, Self.corner])], [original, otherShot], [0, 1],
                                               layouts: nil, features: nil, shouldStop: { false })
        #expect(unasked.near == [1])
    }

    @Test("what a large library's search returns of a pairing: within the window's radius (10 bits in a corner, 8 elsewhere) and agreeing within a bit on a piece of either cut")
    func returnedPairings() {
        let plan = CandidatePlan().sized(for: 1_000_000), pieces = MultiIndexHash.pieceCount(for: 1_000_000)
        #expect(pieces == 3)
        var a = photo(1, thumbnail: Self.scene()), b = photo(2, thumbnail: Self.scene())
        let centre = Grouper.Pairing(slotA: 13, slotB: 0), corner = Grouper.Pairing(slotA: 5, slotB: 0)
        func returns(_ pairing: Grouper.Pairing, _ mask: UInt64) -> Bool {
            a.windowPHashes[pairing.slotA - 1] = b.pHash ^ mask
            return plan.returns(pairing, a, b, pieces: pieces)
        }
        // The pieces of the first cut are bits 0–21, 22–42 and 43–63.
        #expect(returns(centre, 0b11 | 0b1 << 22))  // 3 bits, the last piece clean
        #expect(!returns(centre, 0b11 | 0b11 << 22 | 0b11 << 43), "6 bits, two in each piece: the probes miss it")
        #expect(!returns(centre, 0x3FF << 22), "10 bits: past the centre window's radius of 8")
        #expect(returns(corner, 0x3FF << 22), "10 bits in a corner window, the first piece clean")
        #expect(!returns(corner, 0xFFF << 22), "12 bits: past every radius")
        #expect(plan.probedPairings(a, b, pieces: pieces).allSatisfy { plan.returns($0, a, b, pieces: pieces) })
    }

    @Test("pairings within reach: each hash within its radius, in candidate order, the mirror listed once")
    func pairingsWithinReach() {
        let plan = CandidatePlan()
        var a = photo(1, thumbnail: Self.scene()), b = photo(2, thumbnail: Self.scene())
        a.windowPHashes[3] = b.pHash ^ 0x3FF  // 10 bits: within the crop radius
        b.windowPHashes[7] = a.pHash ^ 0x7FF  // 11 bits: past it
        a.mirrorPHash = b.pHash ^ 0x3
        b.mirrorPHash = a.pHash ^ 0x3
        let reach = plan.pairingsWithinReach(a, b)
        let pairs = reach.map { ($0.slotA, $0.slotB) }
        #expect(pairs.contains { $0 == (4, 0) } && !pairs.contains { $0 == (0, 8) })
        let mirror = Int(Candidate.mirrorSlot)
        #expect(pairs.filter { $0.0 == mirror || $0.1 == mirror }.map { "\($0)" } == ["(\(mirror), 0)"], "from the first row, which has a mirror hash")
        #expect(reach == reach.sorted { ($0.slotA, $0.slotB) < ($1.slotA, $1.slotB) })
        // Every overlay window of the plan, the same window of both (their hashes are equal here).
        #expect(Set(reach.filter { $0.slotA == $0.slotB && $0.slotA != 0 }.map { $0.slotA - 1 }) == Set(plan.overlayWindows))
    }
}
