@testable import Coordinator
import Analysis
import Foundation
import Testing

/// Rules 45 (`PairJudge+Registration`): a crop drawn anywhere in the frame registers once the
/// descent is gated wider than its limit, half its best fixed pairing's difference,
/// and a second viewpoint of the scene, which a window fits as well, is told from a crop by the
/// parallax left in the registered part (`Parallax`).
@Suite("Free crops and other viewpoints", .timeLimit(.minutes(5)))
struct FreeCropsAndViewpointsTests {
    typealias Scene = RegisteredCropsTests.Scene

    /// 78% × 80% of the scene, its top left corner at (13%, 7%): between every fixed window.
    /// `shear` moves each row across by `shear` × (its height in the scene − ½) × 2 of the
    /// width: a view from a step to the side over a receding ground, the near rows moving one
    /// way and the far ones the other.
    static func crop(_ scene: Scene, shear: Double = 0) -> RGBImage {
        let (x, y, w, h) = (0.13, 0.07, 0.78, 0.8)
        return RegisteredCropsTests.render(scene, width: Int(480 * w), height: Int(300 * h)) { u, v in
            let sceneY = y + h * v
            return (x + w * u + shear * (sceneY - 0.5) * 2, sceneY)
        }
    }

    struct Case {
        let original: GroupingPhoto, copy: GroupingPhoto
        let pairings: [Grouper.Pairing]
        let best: PairJudge.BestPairing
        let judge = PairJudge()

        init(seed: UInt64, shear: Double = 0) throws {
            let scene = Scene(seed: seed)
            original = try GroupingPhoto.analysed(1, "/p/1.jpg", RegisteredCropsTests.render(scene))
            copy = try GroupingPhoto.analysed(2, "/p/2.jpg", FreeCropsAndViewpointsTests.crop(scene, shear: shear))
            pairings = AnalysedRows.pairingsWithinReach(original, copy)
            var cache = LayoutCellCache(capacity: 0), best: PairJudge.BestPairing?
            // No fixed window confirms the copy: whatever finds it is registration.
            #expect(judge.directRelation(original, copy, pairings: pairings, rows: (0, 1), cache: &cache, best: &best) == nil)
            self.best = try #require(best)
            #expect(self.best.pairing.slotB == 0 && (1...FeatureWindow.crops.count).contains(self.best.pairing.slotA), "\(self.best.pairing)")
        }

        var start: PairJudge.RegistrationStart { .crop(FeatureWindow.crops[best.pairing.slotA - 1]) }
        var limit: Float { judge.registrationLimit(best) }
        /// Where the judge gates the descent (rules 45; the copy has fewer pixels).
        var gate: Float { min(judge.windowConfirmation, limit * PairJudge.registrationGateWidening) }

        func relation() -> PairRelation? {
            var cache = LayoutCellCache(capacity: 0)
            return judge.relation(original, copy, pairings: pairings, rows: (0, 1), cache: &cache)
        }
    }

    @Test("a crop between the fixed windows registers when the descent is gated wider than its own limit", arguments: [5, 7] as [UInt64])
    func freeCropRegisters(seed: UInt64) throws {
        let pair = try Case(seed: seed)
        #expect(pair.limit < pair.judge.windowConfirmation, "half the best pairing's difference is the tighter limit")
        // Gated at its own limit the descent gives up (rules 20 to 44); gated as the judge gates
        // it, it ends within its own limit, and the judge calls the pair near.
        #expect(PairJudge.register(pair.copy, in: pair.original, from: pair.start, limit: pair.limit) == nil)
        #expect(PairJudge.register(pair.copy, in: pair.original, from: pair.start, limit: pair.limit, gatedAt: pair.gate) != nil)
        #expect(pair.relation() == .near)
        // The same crop enlarged to its original's width is not found, as before rules 45 (the gates
        // widen only for a copy with fewer pixels, and no seed has its width).
        var enlarged = pair.copy
        (enlarged.width, enlarged.height) = (pair.original.width, pair.original.width * pair.copy.height / pair.copy.width)
        var cache = LayoutCellCache(capacity: 0)
        #expect(pair.judge.relation(pair.original, enlarged, pairings: pair.pairings, rows: (0, 1), cache: &cache) != .near)
    }

    @Test("the same crop of a view from a step aside registers too, and its parallax says it is another viewpoint")
    func otherViewpointRefused() throws {
        let pair = try Case(seed: 11, shear: 0.03)
        let window = try #require(PairJudge.register(pair.copy, in: pair.original, from: pair.start, limit: pair.limit, gatedAt: pair.gate))
        // The part under the window passes every check of two whole frames at the window limit…
        let part = PairJudge.part(of: pair.original, under: window)
        var strict = pair.judge, cache = LayoutCellCache(capacity: 0), ignored: PairJudge.BestPairing?
        strict.frameConfirmation = strict.windowConfirmation
        #expect(strict.directRelation(part, pair.copy, pairings: [Grouper.Pairing(slotA: 0, slotB: 0)], rows: (0, 1),
                                      cache: &cache, best: &ignored) == .near)
        // …but its rows stay displaced by different amounts, which no crop leaves.
        let spread = try #require(Parallax.spread(part.thumbnail, pair.copy.thumbnail, side: LayoutThumbnail.side))
        #expect(spread > PairJudge.parallaxLimit, "\(spread)")
        #expect(pair.relation() != .near)
        // The crop of the scene itself, registered the same way, is near with no parallax.
        let crop = try Case(seed: 11)
        #expect(crop.relation() == .near)
    }

    @Test("a slighter shear (a third of a thumbnail pixel each way) is still a crop")
    func slightShearIsACrop() throws {
        #expect(try Case(seed: 11, shear: 0.02).relation() == .near)
    }
}
