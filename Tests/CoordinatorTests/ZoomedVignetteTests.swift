@testable import Coordinator
@testable import Analysis
import Foundation
import Testing

/// Rules 48 (`PairJudge.vignetteExplainsZoom`): corners darkened all round can read as a frame
/// zoomed in, and a vignetted copy of one size was taken for another shot of its photo; a zoomed
/// shot stays one with a vignette on top.
@Suite("Vignettes that read as a zoom", .timeLimit(.minutes(5)))
struct ZoomedVignetteTests {
    /// A smooth scene, light falling off from the middle (a dune, a sky): where a centred zoom
    /// and a vignette change the frame alike.
    static let smooth = RegisteredCropsTests.render(width: 960, height: 600, map: { ($0, $1) }) { x, y in
        let dx = x - 0.5, dy = y - 0.5
        let level = 150 + 60 * sin(6 * x + 4 * y + 11.9) - 160 * (dx * dx + dy * dy)
        return (level, level * 0.8, level * 0.6)
    }

    func frames(_ photo: GroupingPhoto) -> LayoutThumbnail.RankedCells { LayoutThumbnail.RankedCells(PairJudge.cells(photo, 0)) }

    func nearUnlessZoomed(_ a: GroupingPhoto, _ b: GroupingPhoto) -> PairRelation {
        var cache = LayoutCellCache(capacity: 0)
        return PairJudge().nearUnlessZoomed(a, b, Grouper.Pairing(slotA: 0, slotB: 0), rows: (0, 1), cache: &cache)
    }

    @Test("a vignetted copy whose frame a centred zoom fits better is near, and groups with its photo")
    func vignetteIsNoZoom() throws {
        let original = try GroupingPhoto.analysed(1, "/d/dune.jpg", Self.smooth)
        let copies = try [0.2, 0.45].enumerated().map { index, strength in
            try GroupingPhoto.analysed(Int64(index + 2), "/d/dune-vignette-\(strength).jpg", VignetteGroupingTests.vignetted(Self.smooth, strength: strength))
        }
        let judge = PairJudge()
        for (a, b) in [(original, copies[0]), (original, copies[1]), (copies[0], copies[1])] {
            // The premise: a zoom fits the two frames better than they line up.
            try #require(judge.zoomFits(a, b, mirroredA: false, framesA: frames(a), framesB: frames(b)), "\(a.path) against \(b.path)")
            #expect(judge.vignetteExplainsZoom(a, b, framesA: frames(a), framesB: frames(b)))
            #expect(nearUnlessZoomed(a, b) == .near && nearUnlessZoomed(b, a) == .near, "\(a.path) against \(b.path)")
        }
        let groups = Grouper().groups(of: [original] + copies)
        #expect(groups.map { Set($0.members.map(\.photoID)) } == [[1, 2, 3]] && groups.map(\.kind) == [.near], "\(groups)")
    }

    @Test("a frame zoomed in stays another shot, also with a vignette on top of it or of the photo")
    func zoomWithAVignetteStaysAZoom() throws {
        for seed in [1, 2, 3] as [UInt64] {
            let scene = ZoomedShotsTests.Scene(seed: seed)
            let original = ZoomedShotsTests.framed(scene, share: 1), zoomed = ZoomedShotsTests.framed(scene, share: 0.95)
            let photo = try GroupingPhoto.analysed(1, "/z/o.jpg", original)
            let darkPhoto = try GroupingPhoto.analysed(2, "/z/ov.jpg", VignetteGroupingTests.vignetted(original, strength: 0.45))
            let darkZoom = try GroupingPhoto.analysed(3, "/z/zv.jpg", VignetteGroupingTests.vignetted(zoomed, strength: 0.45))
            let plainZoom = try GroupingPhoto.analysed(4, "/z/z.jpg", zoomed)
            for (a, b) in [(photo, darkZoom), (darkPhoto, plainZoom), (darkPhoto, darkZoom)] {
                #expect(!PairJudge().vignetteExplainsZoom(a, b, framesA: frames(a), framesB: frames(b)), "scene \(seed): \(a.path), \(b.path)")
                #expect(nearUnlessZoomed(a, b) != .near, "scene \(seed): \(a.path), \(b.path)")
            }
        }
    }
}
