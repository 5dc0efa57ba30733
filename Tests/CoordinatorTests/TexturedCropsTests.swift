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
}
