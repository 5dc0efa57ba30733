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

    /// A shape of the end-to-end library's generator (bench/e2e-library.py, Pillow's `ImageDraw`),
    /// as the pixels it fills: for each row it covers, the columns from the first to the last.
    struct Shape {
        var spans: [Int: ClosedRange<Int>]
        var colour: [UInt8]

        /// A box from (x0, y0) to (x1, y1), inclusive.
        static func box(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ colour: [UInt8]) -> Shape {
            Shape(spans: Dictionary(uniqueKeysWithValues: (y0...y1).map { ($0, x0...x1) }), colour: colour)
        }

        /// Rows of (y, first x, last x): an ellipse as Pillow fills it, which no simple formula
        /// reproduces to the pixel (and a few pixels at its rim move a 32×32 thumbnail's cells by
        /// up to 16 gray levels, enough to change the verdict this test is about).
        static func rows(_ rows: [(Int, Int, Int)], _ colour: [UInt8]) -> Shape {
            Shape(spans: Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1...$0.2) }), colour: colour)
        }

        func covers(_ x: Int, _ y: Int) -> Bool { spans[y]?.contains(x) ?? false }
    }

    /// A 160×120 plain graphic: `shapes` on `ground`, the later on top.
    static func plainGraphic(ground: [UInt8], _ shapes: [Shape]) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: 160 * 120 * 3)
        for y in 0..<120 {
            for x in 0..<160 {
                let colour = shapes.last { $0.covers(x, y) }?.colour ?? ground
                pixels.replaceSubrange((y * 160 + x) * 3..<(y * 160 + x + 1) * 3, with: colour)
            }
        }
        return RGBImage(width: 160, height: 120, pixels: pixels)
    }

    @Test("other plain graphics that look alike turned are not near; the same graphic turned is")
    func plainGraphics() throws {
        // Two files of the end-to-end library, p137421 and p081799, drawn as its generator draws
        // them (random.Random(index)'s shapes): a dark blue box, a purple ellipse below it and a
        // magenta one at the right edge on lime; a teal bar, a red mark left of it and a green
        // one at the bottom on yellow. The first turned clockwise lies 4 bits from the second.
        // Their frames call them distinct; the same windows of both, which search never paired,
        // call them near, as rules 43's first version did (`turnedRelation` judges two plain
        // graphics on their frames alone): this fails without that exception.
        let first = Self.plainGraphic(ground: [164, 238, 28], [
            .box(75, 40, 109, 94, [55, 92, 140]),
            // Ellipses in the boxes (144, 59)–(194, 69) and (70, 105)–(105, 126), cut by the frame.
            .rows([(59, 159, 159), (60, 152, 159), (61, 148, 159), (62, 146, 159), (63, 145, 159), (64, 144, 159),
                   (65, 145, 159), (66, 146, 159), (67, 148, 159), (68, 152, 159), (69, 159, 159)], [147, 19, 99]),
            .rows([(105, 83, 92), (106, 79, 96), (107, 77, 98), (108, 75, 100), (109, 74, 101), (110, 73, 102),
                   (111, 72, 103), (112, 71, 104), (113, 71, 104), (114, 70, 105), (115, 70, 105), (116, 70, 105),
                   (117, 70, 105), (118, 71, 104), (119, 71, 104)], [85, 6, 181]),
        ])
        // The second's ground 4 levels lighter in red and blue than the file's (226, 238, 89): drawn
        // here its pixels differ from the file's by a gray level or so, and at the file's own
        // ground its frames sit on the edge between distinct and no verdict (no verdict, where
        // the file's are distinct); at every ground within 4 levels of this one they are
        // distinct, and the same windows near.
        let second = Self.plainGraphic(ground: [230, 238, 93], [
            .box(2, 57, 12, 79, [202, 70, 63]), .box(27, 59, 103, 82, [124, 185, 195]), .box(73, 112, 86, 139, [101, 196, 51]),
        ])
        let a = try GroupingPhoto.analysed(1, "/a/p137421.jpg", first), b = try GroupingPhoto.analysed(2, "/b/p081799.jpg", second)
        let copy = try GroupingPhoto.analysed(3, "/a/p137421-turned.jpg", first.turned(clockwise: true))
        let turned = Grouper.Pairing(slotA: Int(Candidate.turnedSlot), slotB: 0)
        let relation = PairJudge().relation(a, b, turned)
        #expect(relation != .near, "\(String(describing: relation))")
        #expect(PairJudge().relation(a, copy, turned) == .near)
    }
}
