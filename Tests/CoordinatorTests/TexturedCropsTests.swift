@testable import Coordinator
import Analysis
import Foundation
import Testing

/// Rules 33: crops of fine texture are judged from the photos' detail layouts (`DetailLayout`,
/// pipeline 8). From the 32×32 thumbnails a brick wall's crop lies past the window limit from
/// the wall's window; from the 64×64 planes it is near, through a fixed window and through
/// registration, while another wall of the same bricks stays apart.
@Suite("Textured crops", .timeLimit(.minutes(5)))
struct TexturedCropsTests {
    /// The wall, its 80% centre (window 37's crop) and a crop of 92% taken 7% from the left and
    /// 2% from the top (no fixed window: registered), each analysed from a JPEG.
    static func family() throws -> [GroupingPhoto] {
        [
            try GroupingPhoto.analysed(1, "/lib/wall.jpg", BrickWall.rgb()),
            try GroupingPhoto.analysed(2, "/lib/centre.jpg", BrickWall.rgb(crop: (51, 51, 410, 410))),
            try GroupingPhoto.analysed(3, "/lib/asym.jpg", BrickWall.rgb(crop: (36, 10, 471, 471))),
        ]
    }

    static func groupOf(_ id: Int64, in groups: [PhotoGroup]) -> Set<Int64> {
        Set(groups.first { $0.kind != .similar && $0.members.contains { $0.photoID == id } }?.members.map(\.photoID) ?? [id])
    }

    @Test("a brick wall and two crops of it are one group from their detail layouts, and apart from their thumbnails alone")
    func cropsFound() throws {
        let photos = try Self.family()
        #expect(photos.allSatisfy { $0.hasDetail }, "every file of the wall keeps its detail layout")
        let groups = Grouper().groups(of: photos)
        #expect(Self.groupOf(1, in: groups) == [1, 2, 3], "\(groups.map { ($0.kind, $0.members.map(\.photoID)) })")
        // As before rules 33: without their detail layouts, neither crop joins the wall.
        let thumbnailsOnly = photos.map { photo in
            var photo = photo
            photo.detail = []
            return photo
        }
        let before = Grouper().groups(of: thumbnailsOnly)
        #expect(Self.groupOf(1, in: before) == [1], "\(before.map { ($0.kind, $0.members.map(\.photoID)) })")
    }

    /// Two walls of the same bricks under the same light agree as whole frames at 12×12 cells
    /// whatever they are resampled from (0.041 from the thumbnails, 0.043 from the planes, within
    /// the frame limit): their pHashes lie 22–24 bits apart, so search never pairs them. Through
    /// the windows, which is where a crop is paired, the other wall's crop stays apart.
    @Test("a crop of another wall of the same bricks, other shades, is near the wall through no window, and not grouped with it")
    func otherWallApart() throws {
        let wall = try GroupingPhoto.analysed(1, "/lib/wall.jpg", BrickWall.rgb())
        let other = try GroupingPhoto.analysed(2, "/lib/other.jpg", BrickWall.rgb(seed: 8, crop: (51, 51, 410, 410)))
        #expect(wall.hasDetail && other.hasDetail)
        for slot in 1...FeatureWindow.crops.count {
            #expect(PairJudge().relation(wall, other, Grouper.Pairing(slotA: slot, slotB: 0)) != .near, "window \(slot - 1)")
        }
        #expect(!Self.groupOf(1, in: Grouper().groups(of: [wall, other])).contains(2))
    }

    /// Gravel: value noise at 14 pixels a blob, `crop` of a 512-pixel frame, no light falling
    /// off (the brick wall's falloff lines up its crops' cells on its own). Fine texture with
    /// nothing larger to hold a crop's cells in place.
    static func gravel(seed: UInt64, crop: BrickWall.Crop) -> RGBImage {
        var random = SplitMix64(seed: seed)
        let side = 64, scale = 14.0
        let grid = (0..<(side * side)).map { _ in Double(random.next() % 1000) / 1000 }
        func level(_ x: Int, _ y: Int) -> UInt8 {
            let gx = Double(x) / scale, gy = Double(y) / scale, i = Int(gx), j = Int(gy)
            func knot(_ a: Int, _ b: Int) -> Double { grid[(b % side) * side + a % side] }
            func ease(_ t: Double) -> Double { t * t * (3 - 2 * t) }
            let sx = ease(gx - Double(i)), sy = ease(gy - Double(j))
            let top = knot(i, j) * (1 - sx) + knot(i + 1, j) * sx, bottom = knot(i, j + 1) * (1 - sx) + knot(i + 1, j + 1) * sx
            return UInt8(40 + 170 * (top * (1 - sy) + bottom * sy))
        }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(crop.width * crop.height * 3)
        for y in crop.y..<(crop.y + crop.height) {
            for x in crop.x..<(crop.x + crop.width) {
                let value = level(x, y)
                pixels += [value, value, value]
            }
        }
        return RGBImage(width: crop.width, height: crop.height, pixels: pixels)
    }

    /// Rules 35: a crop of 5% off one side of gravel pairs through its whole frame (6 bits from
    /// the original's, within the frame radius), where the texture's misfit is past the frame
    /// limit (0.12 against 0.09); registered from the whole frames, against the side it kept, it
    /// is near, either way round. Another shot of the gravel in the same shape (moved along it
    /// by as much, as a pan's next frame) is never registered from its frames.
    @Test("a 5% crop of one side of gravel registers from the whole frames; a moved shot of the same shape does not")
    func cropOfOneSide() throws {
        let ground = try GroupingPhoto.analysed(1, "/lib/gravel.jpg", Self.gravel(seed: 7, crop: (0, 0, 512, 512)))
        let cut = try GroupingPhoto.analysed(2, "/lib/cut.jpg", Self.gravel(seed: 7, crop: (26, 0, 486, 512)))
        let moved = try GroupingPhoto.analysed(3, "/lib/moved.jpg", Self.gravel(seed: 7, crop: (26, 0, 512, 512)))
        #expect(ground.hasDetail && cut.hasDetail)
        #expect(PerceptualHash.distance(ground.pHash, cut.pHash) <= Grouper().plan.frameRadius)
        let frames = [Grouper.Pairing(slotA: 0, slotB: 0)]
        var cache = LayoutCellCache(capacity: 0), best: PairJudge.BestPairing?
        let judge = PairJudge()
        #expect(judge.directRelation(ground, cut, pairings: frames, rows: (0, 1), cache: &cache, best: &best) == nil)
        #expect(try #require(best).difference > judge.frameConfirmation)
        #expect(judge.relation(ground, cut, pairings: frames, rows: (0, 1), cache: &cache) == .near)
        #expect(judge.relation(cut, ground, pairings: frames, rows: (1, 0), cache: &cache) == .near)
        #expect(PairJudge.frameCrop(ground, moved) == nil)
        #expect(!judge.registered(ground, moved, from: frames[0], within: judge.windowConfirmation, rows: (0, 2), cache: &cache))
        #expect(judge.relation(ground, moved, pairings: AnalysedRows.pairings(ground, moved), rows: (0, 2), cache: &cache) != .near)
    }

    @Test("whole frames are a photo and a crop of one side only when their shapes differ by 1–15% and the crop is no larger along the side it kept")
    func frameCropShapes() {
        func photo(_ id: Int64, _ width: Int, _ height: Int) -> GroupingPhoto {
            GroupingPhoto(id: id, path: "/p/\(id).jpg", sha256: [], pHash: 0, dHash: 0, width: width, height: height, fileSize: 1, sharpness: 1)
        }
        let original = photo(1, 6000, 4000)
        #expect(PairJudge.frameCrop(original, photo(2, 5820, 4000))?.0.id == 1, "3% off one side")
        #expect(PairJudge.frameCrop(photo(2, 1000, 690), original)?.0.id == 1, "cut, then made smaller")
        #expect(PairJudge.frameCrop(original, photo(2, 6000, 3900))?.1.id == 2, "2.5% off the bottom")
        #expect(PairJudge.frameCrop(original, photo(2, 4000, 3000))?.1.id == 2, "4:3 cut from 3:2 (11% of the width)")
        #expect(PairJudge.frameCrop(original, photo(2, 6200, 4000))?.0.id == 2, "the one with more pixels is the original")
        #expect(PairJudge.frameCrop(original, photo(2, 1024, 683)) == nil, "a resized copy: one shape")
        #expect(PairJudge.frameCrop(original, photo(2, 1920, 1080)) == nil, "16:9 against 3:2: past 15%")
        #expect(PairJudge.frameCrop(original, photo(2, 6100, 3800)) == nil, "fewer pixels, but more along the side it kept: not a cut")
    }
}
