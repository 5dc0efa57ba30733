@testable import Coordinator
import Analysis
import Foundation
import Testing

/// Zoomed shots (rules 22, `PairJudge+Zoom`): a file that shows another's frame zoomed in, at
/// that other's own pixel size, is another shot of the moment, never a near copy, and it stays
/// out of the photo's duplicate group also when a small copy of the photo is near both. The same
/// part of the frame saved at its own, smaller size is a crop, and near.
@Suite("Zoomed shots", .timeLimit(.minutes(5)))
struct ZoomedShotsTests {
    typealias Scene = RegisteredCropsTests.Scene
    static let width = RegisteredCropsTests.width, height = RegisteredCropsTests.height

    /// The scene's centre `share` of each side (`share` < 1 zooms in), `width` × `height` pixels.
    static func framed(_ scene: Scene, share: Double, width: Int = width, height: Int = height) -> RGBImage {
        let margin = (1 - share) / 2
        return RegisteredCropsTests.render(scene, width: width, height: height) { u, v in (margin + share * u, margin + share * v) }
    }

    func analysed(_ id: Int64, _ image: RGBImage) throws -> GroupingPhoto {
        try GroupingPhoto.analysed(id, "/p/\(id).jpg", image)
    }

    func relation(_ a: GroupingPhoto, _ b: GroupingPhoto) -> PairRelation? {
        var cache = LayoutCellCache(capacity: 0)
        return PairJudge().relation(a, b, pairings: AnalysedRows.pairings(a, b), rows: (0, 1), cache: &cache)
    }

    @Test("a frame zoomed 5% and 8% at the original's size is another shot; the same part saved at its own size is a crop, near")
    func zoomAtTheSameSize() throws {
        let scene = Scene(seed: 11)
        let original = try analysed(1, Self.framed(scene, share: 1))
        for (id, share) in [(2, 0.95), (3, 0.92)] as [(Int64, Double)] {
            let zoomed = try analysed(id, Self.framed(scene, share: share))
            #expect(relation(original, zoomed) == .otherShot, "zoomed to \(share)")
            #expect(relation(zoomed, original) == .otherShot, "zoomed to \(share), asked the other way")
            let crop = try analysed(id + 10, Self.framed(scene, share: share, width: Int(Double(Self.width) * share),
                                                         height: Int(Double(Self.height) * share)))
            #expect(relation(original, crop) == .near, "cropped to \(share)")
        }
    }

    @Test("edits at the original's size (a tone curve, a re-encode) stay near: the zoom fit is not taken for one")
    func sameSizeEditsStayNear() throws {
        let scene = Scene(seed: 11)
        let original = try analysed(1, Self.framed(scene, share: 1))
        let toned = try analysed(2, RegisteredCropsTests.render(scene, tone: { value, _, _ in 255 * pow(value / 255, 0.8) }))
        #expect(relation(original, toned) == .near)
        let again = try analysed(3, Self.framed(scene, share: 1))
        #expect(relation(original, again) == .near)
    }

    @Test("a tone edit that search pairs only through a crop window (its frame's hash moved past the radius) is near: its whole frames line up better than the window")
    func toneEditPairedThroughAWindow() throws {
        // A smooth scene, a few large shapes on a gradient: a window of it is confirmed against
        // the whole frame, as on the holdout's low-detail photos.
        var scene = Scene(seed: 5)
        scene.discs = [(x: 0.3, y: 0.4, radius: 0.25, colour: (200, 150, 90)), (x: 0.75, y: 0.65, radius: 0.2, colour: (90, 160, 210))]
        let original = try analysed(1, Self.framed(scene, share: 1))
        let toned = try analysed(2, RegisteredCropsTests.render(scene, tone: { value, _, _ in min(255, 30 + 1.3 * value) }))
        let judge = PairJudge()
        let windows = (0..<50).flatMap { k in [Grouper.Pairing(slotA: k + 1, slotB: 0), Grouper.Pairing(slotA: 0, slotB: k + 1)] }
        let confirming = windows.filter { pairing in
            LayoutThumbnail.evidenceDifference(PairJudge.cells(original, pairing.slotA), PairJudge.cells(toned, pairing.slotB)) <= judge.windowConfirmation
        }
        try #require(!confirming.isEmpty, "a window that confirms the two")
        let frames = LayoutThumbnail.evidenceDifference(PairJudge.cells(original, 0), PairJudge.cells(toned, 0))
        var judged = 0
        for pairing in confirming {
            let window = LayoutThumbnail.evidenceDifference(PairJudge.cells(original, pairing.slotA), PairJudge.cells(toned, pairing.slotB))
            guard frames <= window - PairJudge.zoomMargin else { continue }
            var cache = LayoutCellCache(capacity: 0)
            #expect(judge.relation(original, toned, pairings: [pairing], rows: (0, 1), cache: &cache) == .near,
                    "frames \(frames), window \(window) at \(pairing)")
            judged += 1
        }
        #expect(judged > 0, "a confirming window the frames line up better than (frames \(frames))")
        // The zoomed shot, paired through its window alone, stays another shot.
        let zoomed = try analysed(3, Self.framed(Scene(seed: 11), share: 0.95)), shot = try analysed(4, Self.framed(Scene(seed: 11), share: 1))
        var cache = LayoutCellCache(capacity: 0)
        let throughWindows = AnalysedRows.pairings(shot, zoomed).filter { PairJudge.isZoomPairing($0) }
        #expect(judge.relation(shot, zoomed, pairings: throughWindows, rows: (0, 1), cache: &cache) == .otherShot)
    }

    @Test("the zoomed shot stays out of the photo's duplicate group, though a small copy of the photo is near both; it is a similar shot of it")
    func zoomedShotKeptApart() throws {
        let scene = Scene(seed: 11)
        let photos = [try analysed(1, Self.framed(scene, share: 1)),
                      try analysed(2, Self.framed(scene, share: 1, width: Self.width / 4, height: Self.height / 4)),
                      try analysed(3, Self.framed(scene, share: 0.95))]
        let groups = try Grouper().groups(of: photos, shouldStop: { false })
        let duplicates = groups.filter { $0.kind != .similar }.map { Set($0.members.map(\.photoID)) }
        #expect(duplicates == [[1, 2]], "\(groups)")
        let similar = groups.filter { $0.kind == .similar }.map { Set($0.members.map(\.photoID)) }
        #expect(similar.contains { $0.contains(3) && $0.contains(1) }, "\(groups)")
    }

    @Test("a textured ground reads as texture, a plain one (with a JPEG's error) as plain")
    func groundTexture() {
        let side = LayoutThumbnail.side
        let ground = [Bool](repeating: false, count: ColourMask.side * ColourMask.side)
        var state: UInt64 = 5
        func noise(_ amplitude: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % (2 * amplitude + 1) - amplitude
        }
        let plain = (0..<(side * side)).map { _ in UInt8(120 + noise(1)) }
        let gravel = (0..<(side * side)).map { _ in UInt8(120 + noise(12)) }
        #expect(ColourMask.groundTexture(plain, side: side, foreground: ground) < PairJudge.texturedGround)
        #expect(ColourMask.groundTexture(gravel, side: side, foreground: ground) >= PairJudge.texturedGround)
        // Only the ground is measured: the shapes off it may be as busy as they like.
        var shapes = plain
        for index in 0..<(side * 10) { shapes[index] = UInt8(60 + noise(40)) }
        let mask = (0..<(ColourMask.side * ColourMask.side)).map { $0 < ColourMask.side * 4 }
        #expect(ColourMask.groundTexture(shapes, side: side, foreground: mask) < PairJudge.texturedGround)
    }
}
