@testable import Coordinator
import Analysis
import Foundation
import Testing

/// The views `RegionalGain` registers are first brought to one shape (`PairJudge.inOneShape`):
/// a crop of one side of a sharp-edged picture has another shape than its original, and no
/// scale and shift of a frame lines the two up, so the misfit along the edges read as a region
/// lit differently and made the copy another shot.
@Suite("Views in one shape before registering", .timeLimit(.minutes(5)))
struct ShapeMatchedRegistrationTests {
    static let width = 400, height = 328

    /// A dark silhouette on a light ground, as the holdout's horse: a body, a neck and a head,
    /// legs; sharp edges, no texture. (u, v) in fractions of the original frame.
    static func silhouette(_ u: Double, _ v: Double) -> UInt8 {
        func inEllipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Bool {
            let dx = (u - cx) / rx, dy = (v - cy) / ry
            return dx * dx + dy * dy <= 1
        }
        let body = inEllipse(0.5, 0.45, 0.32, 0.2), neck = inEllipse(0.78, 0.3, 0.08, 0.2), head = inEllipse(0.86, 0.16, 0.1, 0.07)
        let legs = v > 0.55 && v < 0.92 && [0.28, 0.36, 0.62, 0.7].contains { abs(u - $0) < 0.03 }
        return body || neck || head || legs ? 20 : 235
    }

    /// Dark and light tiles, 5 across and 4 down: long straight edges over the whole frame.
    static func tiles(_ u: Double, _ v: Double) -> UInt8 {
        (Int(u * 5) + Int(v * 4)) % 2 == 0 ? 20 : 235
    }

    /// `picture` at `width` × `height`, showing the original frame's `x`...`x + w`, `y`...`y + h`.
    static func render(_ picture: (Double, Double) -> UInt8 = silhouette,
                       width: Int, height: Int, x: Double = 0, y: Double = 0, w: Double = 1, h: Double = 1) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for j in 0..<height {
            for i in 0..<width {
                var sum = 0
                for (du, dv) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                    sum += Int(picture(x + w * (Double(i) + du) / Double(width), y + h * (Double(j) + dv) / Double(height)))
                }
                let index = (j * width + i) * 3
                pixels[index] = UInt8(sum / 4)
                pixels[index + 1] = UInt8(sum / 4)
                pixels[index + 2] = UInt8(sum / 4)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    @Test("a sharp-edged picture cropped on one side is near its original, not another shot")
    func cropOfOneSide() throws {
        let original = try GroupingPhoto.analysed(1, "/p/original.jpg", Self.render(width: Self.width, height: Self.height))
        // 3% off the left (388 × 328), 6% off the right, 8% off the top.
        let crops = [(2, Self.render(width: 388, height: Self.height, x: 0.03, w: 0.97)),
                     (3, Self.render(width: 376, height: Self.height, w: 0.94)),
                     (4, Self.render(width: Self.width, height: 302, y: 0.08, h: 0.92))]
        for (id, image) in crops {
            let copy = try GroupingPhoto.analysed(Int64(id), "/p/\(id).jpg", image)
            var cache = LayoutCellCache(capacity: 0)
            #expect(PairJudge().relation(original, copy, pairings: AnalysedRows.pairings(original, copy), rows: (0, 1), cache: &cache) == .near, "crop \(id)")
            // The whole frames are brought to one shape before they are registered.
            let frames = Grouper.Pairing(slotA: 0, slotB: 0)
            let views = PairJudge.oriented(original, copy, frames), matched = PairJudge.inOneShape(views)
            #expect(matched.windowA != views.windowA || matched.windowB != views.windowB, "crop \(id)")
            #expect(PairJudge.regionalGain(original, copy, frames) < LocalChange.sceneChangeShare, "crop \(id)")
        }
    }

    @Test("registered in their own shapes, the misfit along long edges reads as a region lit differently; in one shape it does not")
    func misfitOfShapes() throws {
        let original = try GroupingPhoto.analysed(1, "/p/tiles.jpg", Self.render(Self.tiles, width: Self.width, height: Self.height))
        let copy = try GroupingPhoto.analysed(2, "/p/tiles-top.jpg", Self.render(Self.tiles, width: Self.width, height: 302, y: 0.08, h: 0.92))
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        let views = PairJudge.oriented(original, copy, frames)
        let ownShapes = RegionalGain.largestRegion(views.planeA, views.windowA, views.planeB, views.windowB)
        #expect(ownShapes >= LocalChange.sceneChangeShare, "\(ownShapes)")
        #expect(PairJudge.regionalGain(original, copy, frames) < LocalChange.sceneChangeShare)
        var cache = LayoutCellCache(capacity: 0)
        #expect(PairJudge().relation(original, copy, pairings: AnalysedRows.pairings(original, copy), rows: (0, 1), cache: &cache) == .near)
    }

    @Test("the wider view is narrowed about its centre to the other's shape, and no further than a fifth")
    func narrowing() {
        func views(_ windowA: FeatureWindow, aspectA: Double, _ windowB: FeatureWindow, aspectB: Double) -> PairJudge.OrientedViews {
            PairJudge.OrientedViews(planeA: [], windowA: windowA, mirroredA: false, planeB: [], windowB: windowB, aspectA: aspectA, aspectB: aspectB)
        }
        // One shape already (a 90% window of a 4:3 photo against a 4:3 photo): left alone.
        let window = FeatureWindow(x: 0.05, y: 0.05, width: 0.9, height: 0.9)
        let same = PairJudge.inOneShape(views(window, aspectA: 4.0 / 3, .full, aspectB: 4.0 / 3))
        #expect(same.windowA == window && same.windowB == .full)
        // The original (400 × 328) against its crop of 3% off the left (388 × 328): the
        // original's frame narrowed to 97% of its width, about its centre.
        let wider = PairJudge.inOneShape(views(.full, aspectA: 400.0 / 328, .full, aspectB: 388.0 / 328))
        #expect(abs(wider.windowA.width - 0.97) < 1e-9 && abs(wider.windowA.x - 0.015) < 1e-9 && wider.windowA.height == 1)
        #expect(wider.windowB == .full)
        // The other way round: the second view is the wider one.
        let second = PairJudge.inOneShape(views(.full, aspectA: 388.0 / 328, .full, aspectB: 400.0 / 328))
        #expect(second.windowA == .full && abs(second.windowB.width - 0.97) < 1e-9)
        // A portrait against a landscape frame (a quarter turn the EXIF did not say): more than
        // a fifth apart, left alone. So are views of a photo whose size is not known.
        let turned = PairJudge.inOneShape(views(.full, aspectA: 4.0 / 3, .full, aspectB: 3.0 / 4))
        #expect(turned.windowA == .full && turned.windowB == .full)
        let unknown = PairJudge.inOneShape(views(.full, aspectA: 0, .full, aspectB: 388.0 / 328))
        #expect(unknown.windowA == .full && unknown.windowB == .full)
    }

    @Test("a registered part has the copy's shape in pixels, so it is not narrowed again")
    func registeredPartShape() throws {
        let original = try GroupingPhoto.analysed(1, "/p/original.jpg", Self.render(width: Self.width, height: Self.height))
        // A window of 85% of the width in a copy's shape of 340 × 295 (85% × 90%).
        let window = TurnedWindow(centreX: 0.5, centreY: 0.5, width: 0.85, angle: 0, imageAspect: Double(Self.width) / Double(Self.height),
                                  shape: 340.0 / 295)
        let part = PairJudge.part(of: original, under: window)
        #expect(part.width == 340 && part.height == 295, "\(part.width) × \(part.height)")
        let copy = try GroupingPhoto.analysed(2, "/p/copy.jpg", Self.render(width: 340, height: 295, x: 0.075, y: 0.05, w: 0.85, h: 0.9))
        let views = PairJudge.oriented(part, copy, Grouper.Pairing(slotA: 0, slotB: 0))
        let matched = PairJudge.inOneShape(views)
        #expect(matched.windowA == views.windowA && matched.windowB == views.windowB)
    }
}
