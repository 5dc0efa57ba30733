@testable import Coordinator
import Analysis
import Testing

/// Rules 43 (`PairJudge+Turned`, `TurnedFrame`): a copy whose pixels were turned a quarter turn,
/// either way, groups with its photo as near; other pictures turned do not; on photos analysed
/// for real.
@Suite("Turned copies", .timeLimit(.minutes(5)))
struct TurnedGroupingTests {
    static let design = SyntheticPhoto.make(seed: 81, width: 960, height: 640)

    @Test("copies turned clockwise and counter-clockwise, one of them resized, are near their photo and grouped with it")
    func copies() throws {
        let original = try GroupingPhoto.analysed(1, "/a/design.jpg", Self.design)
        let right = try GroupingPhoto.analysed(2, "/a/design-right.jpg", Self.design.turned(clockwise: true))
        let left = try GroupingPhoto.analysed(3, "/a/design-left.jpg", Self.design.turned(clockwise: false).resized(width: 320, height: 480))
        // The premise: nothing but the turned frame pairs them.
        #expect(PerceptualHash.distance(original.pHash, right.pHash) > Grouper().threshold)
        #expect(PerceptualHash.distance(original.pHash, left.pHash) > Grouper().threshold)
        let turned = Int(Candidate.turnedSlot)
        #expect(PairJudge().relation(original, right, Grouper.Pairing(slotA: turned, slotB: 0)) == .near)
        #expect(PairJudge().relation(left, original, Grouper.Pairing(slotA: turned, slotB: 0)) == .near)
        #expect(PairJudge().relation(original, left, Grouper.Pairing(slotA: 0, slotB: turned)) == .near)
        // The wrong way round is a half turn: not the same picture.
        #expect(PairJudge().relation(right, original, Grouper.Pairing(slotA: turned, slotB: 0)) != .near)

        let groups = Grouper().groups(of: [original, right, left])
        #expect(groups.map { Set($0.members.map(\.photoID)) } == [[1, 2, 3]] && groups.map(\.kind) == [.near], "\(groups)")
        var without = Grouper()
        without.plan.turns = false
        #expect(without.groups(of: [original, right, left]).isEmpty, "found by the turned frames alone")
    }

    @Test("other pictures turned are nothing to the photo; a turned copy of another shot stays apart from the duplicates")
    func others() throws {
        let original = try GroupingPhoto.analysed(1, "/a/design.jpg", Self.design)
        let turned = Int(Candidate.turnedSlot)
        for seed in [82, 83, 84] as [UInt64] {
            let other = try GroupingPhoto.analysed(2, "/b/other.jpg", SyntheticPhoto.make(seed: seed, width: 640, height: 960))
            #expect(PairJudge().relation(original, other, Grouper.Pairing(slotA: turned, slotB: 0)) != .near, "seed \(seed)")
            #expect(PairJudge().relation(other, original, Grouper.Pairing(slotA: turned, slotB: 0)) != .near, "seed \(seed)")
        }
        // The same view with part of the scene lit differently, turned: another shot, not a copy.
        let shot = try GroupingPhoto.analysed(3, "/a/design-2.jpg", VignetteGroupingTests.relit(Self.design).turned(clockwise: true))
        #expect(PairJudge().relation(original, shot, Grouper.Pairing(slotA: turned, slotB: 0)) != .near)
        #expect(Grouper().groups(of: [original, shot]).allSatisfy { $0.kind == .similar })
    }

    /// A 160×120 plain graphic: `shapes` (boxes, x0..<x1 and y0..<y1, in their colours) on `ground`.
    static func plainGraphic(ground: [UInt8], _ shapes: [(x: Range<Int>, y: Range<Int>, colour: [UInt8])]) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: 160 * 120 * 3)
        for y in 0..<120 {
            for x in 0..<160 {
                let colour = shapes.last { $0.x.contains(x) && $0.y.contains(y) }?.colour ?? ground
                pixels.replaceSubrange((y * 160 + x) * 3..<(y * 160 + x + 1) * 3, with: colour)
            }
        }
        return RGBImage(width: 160, height: 120, pixels: pixels)
    }

    @Test("other plain graphics that look alike turned are not near; the same graphic turned is")
    func plainGraphics() throws {
        // Two files of the end-to-end library (f137/p137421 and f081/p081799), drawn again: a
        // dark blue box, a purple mark below it and a magenta one at the right edge on lime;
        // a teal bar, a red mark left of it and a green one at the bottom on yellow. The first
        // turned clockwise lies 4 bits from the second. (There, before rules 43's last version,
        // windows search never paired called the two near; this drawing of them is distinct on
        // its frames already, so it checks the verdict, not which rule gives it.)
        let first = Self.plainGraphic(ground: [163, 238, 30], [(75..<110, 40..<95, [55, 90, 140]), (70..<106, 105..<120, [100, 10, 190]),
                                                               (145..<160, 58..<68, [150, 20, 100])])
        let second = Self.plainGraphic(ground: [224, 234, 90], [(27..<90, 59..<83, [125, 185, 190]), (2..<13, 57..<80, [200, 70, 60]),
                                                                (73..<86, 112..<120, [100, 200, 60])])
        let a = try GroupingPhoto.analysed(1, "/a/p137421.jpg", first), b = try GroupingPhoto.analysed(2, "/b/p081799.jpg", second)
        let copy = try GroupingPhoto.analysed(3, "/a/p137421-turned.jpg", first.turned(clockwise: true))
        let turned = Grouper.Pairing(slotA: Int(Candidate.turnedSlot), slotB: 0)
        let relation = PairJudge().relation(a, b, turned)
        #expect(relation != .near, "\(String(describing: relation))")
        #expect(PairJudge().relation(a, copy, turned) == .near)
    }
}
