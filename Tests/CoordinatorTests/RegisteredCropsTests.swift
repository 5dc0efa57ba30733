@testable import Coordinator
import Analysis
import Foundation
import Testing

/// Registration (rules 20, `PairJudge+Registration`): a straightened crop and a crop of two sides
/// that no fixed window fits are near their original once the copy's frame is found in it; a
/// burst frame (zoomed in, part of the scene lit differently) and another scene are not. A crop
/// straightened further than the crop windows reach pairs through a straightened frame
/// (pipeline 6) and registers from it (rules 21). A crop of two sides that an 80% window pairs
/// best registers from a seed of the copy's own width (rules 28).
@Suite("Registered crops", .timeLimit(.minutes(5)))
struct RegisteredCropsTests {
    static let width = 480, height = 300

    /// A busy scene (rows of cups seen from above, a field of leaves): many small discs of
    /// their own brightness and colour on a darker ground, in fractions of the frame. Fine
    /// texture is where a few percent of misfit moves the layout most.
    struct Scene {
        var discs: [(x: Double, y: Double, radius: Double, colour: (Double, Double, Double))] = []

        init(seed: UInt64) {
            var state = seed
            func next() -> Double {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Double(state >> 11) / Double(1 << 53)
            }
            for _ in 0..<70 {
                let shade = 60 + 180 * next()
                discs.append((x: next(), y: next(), radius: 0.03 + 0.05 * next(),
                              colour: (shade, shade * (0.6 + 0.5 * next()), 255 - shade * 0.7)))
            }
        }

        /// The colour at (x, y) of the frame (fractions; y down; the frame's aspect is 1.6).
        func colour(_ x: Double, _ y: Double) -> (Double, Double, Double) {
            for disc in discs.reversed() {
                let dx = (x - disc.x) * 1.6, dy = y - disc.y
                if dx * dx + dy * dy < disc.radius * disc.radius { return disc.colour }
            }
            return (30 + 20 * sin(x * 9), 40, 50 + 20 * cos(y * 7))
        }
    }

    /// An image of `width` × `height` whose pixel (i, j) shows the scene at `map(u, v)` (u, v the
    /// pixel's centre in fractions of the image), each pixel the mean of 2×2 samples.
    static func render(_ scene: Scene, width: Int = width, height: Int = height,
                       map: (Double, Double) -> (Double, Double) = { ($0, $1) },
                       tone: (Double, Double, Double) -> Double = { value, _, _ in value }) -> RGBImage {
        render(width: width, height: height, map: map) { x, y in
            let c = scene.colour(x, y)
            return (tone(c.0, x, y), tone(c.1, x, y), tone(c.2, x, y))
        }
    }

    /// An image of `width` × `height` whose pixel (i, j) is the mean of `colour` at 2×2 samples,
    /// each at `map(u, v)` (u, v in fractions of the image).
    static func render(width: Int, height: Int, map: (Double, Double) -> (Double, Double),
                       colour: (Double, Double) -> (Double, Double, Double)) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for j in 0..<height {
            for i in 0..<width {
                var sum = (0.0, 0.0, 0.0)
                for (du, dv) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                    let (x, y) = map((Double(i) + du) / Double(width), (Double(j) + dv) / Double(height))
                    let c = colour(x, y)
                    sum = (sum.0 + c.0, sum.1 + c.1, sum.2 + c.2)
                }
                let index = (j * width + i) * 3
                pixels[index] = UInt8(max(0, min(255, sum.0 / 4)))
                pixels[index + 1] = UInt8(max(0, min(255, sum.1 / 4)))
                pixels[index + 2] = UInt8(max(0, min(255, sum.2 / 4)))
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// The scene turned by `degrees` about its centre and cropped to the largest centred box of
    /// the same shape that shows no corner (as a "straighten" tool does), at its own size.
    static func straightened(_ scene: Scene, degrees: Double) -> RGBImage {
        let a = degrees * Double.pi / 180, aspect = Double(width) / Double(height)
        let k = 1 / (cos(a) + aspect * abs(sin(a)))
        return render(scene, width: Int((Double(width) * k).rounded()), height: Int((Double(height) * k).rounded())) { u, v in
            // In units of the frame's height, from its centre.
            let dx = (u - 0.5) * k * aspect, dy = (v - 0.5) * k
            return (0.5 + (dx * cos(a) - dy * sin(a)) / aspect, 0.5 + dx * sin(a) + dy * cos(a))
        }
    }

    /// The scene with 15% cut off the left and 10% off the bottom.
    static func croppedTwoSides(_ scene: Scene) -> RGBImage {
        render(scene, width: Int(Double(width) * 0.85), height: Int(Double(height) * 0.9)) { u, v in (0.15 + 0.85 * u, 0.9 * v) }
    }

    func analysed(_ id: Int64, _ image: RGBImage) throws -> GroupingPhoto {
        try GroupingPhoto.analysed(id, "/p/\(id).jpg", image)
    }

    /// What the judge says on every pairing candidate search could make, and what it says
    /// without registration (the pairings alone).
    func verdicts(_ a: GroupingPhoto, _ b: GroupingPhoto) -> (relation: PairRelation?, direct: PairRelation?) {
        var cache = LayoutCellCache(capacity: 0), best: PairJudge.BestPairing?
        let pairings = AnalysedRows.pairings(a, b)
        let judge = PairJudge()
        return (judge.relation(a, b, pairings: pairings, rows: (0, 1), cache: &cache),
                judge.directRelation(a, b, pairings: pairings, rows: (0, 1), cache: &cache, best: &best))
    }

    @Test("a straightened crop (4°) and a crop of two sides are near their original only once registered")
    func cropsRegister() throws {
        let scene = Scene(seed: 7)
        let original = try analysed(1, Self.render(scene))
        for (id, copy) in [(2, Self.straightened(scene, degrees: 4)), (3, Self.straightened(scene, degrees: -3)), (4, Self.croppedTwoSides(scene))] {
            let photo = try analysed(Int64(id), copy)
            let (relation, direct) = verdicts(original, photo)
            #expect(relation == .near, "copy \(id)")
            // The fixed windows alone do not confirm it: registration is what finds it.
            #expect(direct != .near, "copy \(id)")
        }
    }

    @Test("a crop of two sides that lines up best with an 80% window registers from its own width")
    func cropRegistersFromItsOwnWidth() throws {
        // Seed 5's crop of 15% off the left and 10% off the bottom: its best fixed pairing is an
        // 80% window, 1.6 times the window limit off, and the largest box inside that window is
        // 5–10% short of the copy.
        let original = try analysed(1, Self.render(Scene(seed: 5)))
        let copy = try analysed(2, Self.croppedTwoSides(Scene(seed: 5)))
        let pairings = AnalysedRows.pairingsWithinReach(original, copy)
        var cache = LayoutCellCache(capacity: 0), best: PairJudge.BestPairing?
        let judge = PairJudge()
        #expect(judge.directRelation(original, copy, pairings: pairings, rows: (0, 1), cache: &cache, best: &best) == nil)
        let start = try #require(best)
        #expect(start.pairing.slotB == 0 && FeatureWindow.crops[start.pairing.slotA - 1].width == 0.8, "\(start.pairing)")
        #expect(start.difference > start.limit * 1.5 && start.difference <= start.limit * PairJudge.registrationReach, "\(start.difference)")
        #expect(judge.relation(original, copy, pairings: pairings, rows: (0, 1), cache: &cache) == .near)
        // The seed of the copy's own width (408 of 480 pixels) is what registers it: the same
        // copy, its size given as the original's width in its shape, does not.
        var unsized = copy
        unsized.width = original.width
        unsized.height = original.width * copy.height / copy.width
        #expect(!judge.registered(original, unsized, from: start.pairing, within: min(judge.windowConfirmation, start.difference * PairJudge.registrationGain),
                                  rows: (0, 1), cache: &cache))
    }

    @Test("crops of 80% with the aspect locked, at offsets between the 10% steps, group with their original; the large-library plan misses one")
    func cropsBetweenTheSteps() throws {
        let scene = Scene(seed: 7)
        let original = try analysed(1, Self.render(scene))
        // 80% of each side, its top left corner at (5%, 15%) and at (15%, 5%): the 80% windows
        // there are hashed by every worker since pipeline 3, and probed by the default plan.
        var photos = [original]
        for (id, x, y) in [(2, 0.05, 0.15), (3, 0.15, 0.05)] as [(Int64, Double, Double)] {
            photos.append(try analysed(id, Self.render(scene, width: Int(Double(Self.width) * 0.8), height: Int(Double(Self.height) * 0.8)) { u, v in
                (x + 0.8 * u, y + 0.8 * v)
            }))
        }
        func duplicates(_ grouper: Grouper) -> [Set<Int64>] {
            grouper.groups(of: photos).filter { $0.kind != .similar }.map { Set($0.members.map(\.photoID)) }
        }
        #expect(duplicates(Grouper()) == [[1, 2, 3]])
        // The plan of libraries past about 320,000 photos leaves those windows out: what they add.
        var large = Grouper()
        large.plan.cropWindows = CandidatePlan.cropWindowsLargeLibraries
        #expect(duplicates(large) != [[1, 2, 3]], "\(duplicates(large))")
    }

    @Test("a crop straightened by 7° pairs only through a straightened frame, and registers from it")
    func straightenedFrames() throws {
        let scene = Scene(seed: 7)
        let original = try analysed(1, Self.render(scene))
        for (id, degrees) in [(2, 7.0), (3, -5.0)] {
            let copy = try analysed(Int64(id), Self.straightened(scene, degrees: degrees))
            #expect(original.windowPHashes.count == FeatureWindow.hashedCount)
            let reach = AnalysedRows.pairingsWithinReach(original, copy)
            #expect(reach.contains(where: PairJudge.throughStraightened), "copy \(id): no straightened frame within reach")
            var cache = LayoutCellCache(capacity: 0)
            #expect(PairJudge().relation(original, copy, pairings: reach, rows: (0, 1), cache: &cache) == .near, "copy \(id)")
            // Without the straightened frames, the fixed windows do not make the 7° copy near: a
            // registration from a crop window turns 6° at the most. (The -5° copy, within that,
            // registers from a crop window too since rules 28.)
            let aligned = reach.filter { !PairJudge.throughStraightened($0) }
            if abs(degrees) * Double.pi / 180 > PairJudge.registrationAngle {
                #expect(PairJudge().relation(original, copy, pairings: aligned, rows: (0, 1), cache: &cache) != .near, "copy \(id)")
            }
        }
    }

    @Test("a copy straightened by each window's angle is nearest that window's hash (wire order and turn direction)")
    func straightenedWireOrder() throws {
        let scene = Scene(seed: 7)
        let original = try analysed(1, Self.render(scene))
        for (position, degrees) in FeatureWindow.straightenings.enumerated() {
            let copy = try analysed(2, Self.straightened(scene, degrees: degrees))
            let distances = FeatureWindow.straightenedWindows.map { PerceptualHash.distance(original.windowPHashes[$0], copy.pHash) }
            #expect(distances.firstIndex(of: distances.min()!) == position, "\(degrees)°: \(distances)")
        }
    }

    @Test("a burst frame (zoomed in 4%, part of the scene lit 40% brighter) and another scene are not near")
    func othersDoNotRegister() throws {
        let scene = Scene(seed: 7)
        let original = try analysed(1, Self.render(scene))
        let burst = try analysed(2, Self.render(scene, map: { u, v in (0.02 + 0.96 * u, 0.02 + 0.96 * v) }) { value, x, y in
            x > 0.5 && x < 0.85 && y > 0.15 && y < 0.5 ? value * 1.4 : value
        })
        #expect(verdicts(original, burst).relation != .near)
        let other = try analysed(3, Self.straightened(Scene(seed: 8), degrees: 4))
        #expect(verdicts(original, other).relation == nil)
    }
}
