@testable import Coordinator
import Analysis
import Testing

/// Grouping with pipeline 4's features: mirror images, bordered copies, crops of one side and
/// caption bands group with their original, on photos analysed for real; each needs its
/// feature (without it they stay apart) and other photos edited alike do not join.
@Suite("Mirror images, borders, bands", .timeLimit(.minutes(5)))
struct MirrorAndBorderGroupingTests {
    static let scene = SyntheticPhoto.make(seed: 41, width: 1200, height: 900)
    static let other = SyntheticPhoto.make(seed: 42, width: 1200, height: 900)

    /// The library: the scene, four edits of it, and the other photo with the same edits.
    func library() throws -> [GroupingPhoto] {
        func edits(_ image: RGBImage, _ base: Int64, _ folder: String) throws -> [GroupingPhoto] {
            [
                try GroupingPhoto.analysed(base + 1, "/\(folder)/mirror.jpg", image.mirrored()),
                try GroupingPhoto.analysed(base + 2, "/\(folder)/mat.jpg", image.bordered(vertical: 108, horizontal: 0, gray: 255)),
                try GroupingPhoto.analysed(base + 3, "/\(folder)/cut-top.jpg", image.cropped(x: 0, y: 198, width: 1200, height: 702)),
                try GroupingPhoto.analysed(base + 4, "/\(folder)/caption.jpg", image.banded(bottom: 0.18, gray: 250)),
            ]
        }
        return [try GroupingPhoto.analysed(1, "/a/original.jpg", Self.scene)] + (try edits(Self.scene, 10, "a"))
            + [try GroupingPhoto.analysed(2, "/b/original.jpg", Self.other)] + (try edits(Self.other, 20, "b"))
    }

    @Test("each edit groups with its own original, in two groups of five")
    func grouped() throws {
        let groups = Grouper().groups(of: try library())
        #expect(groups.count == 2)
        #expect(groups.allSatisfy { $0.kind == .near })
        let members = Set(groups.map { Set($0.members.map(\.photoID)) })
        #expect(members == [[1, 11, 12, 13, 14], [2, 21, 22, 23, 24]])
    }

    @Test("the copy in a white mat is never the keeper, though it has the most pixels: its borders measure even, the caption band's do not")
    func matIsNotTheKeeper() throws {
        let photos = try library()
        let byID = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0) })
        for mat in photos where mat.path.hasSuffix("/mat.jpg") {
            #expect(KeeperPolicy.hasAddedBorders(mat), "the mat (108 rows above and below) reads as added borders: \(String(describing: mat.contentBox))")
        }
        for caption in photos where caption.path.hasSuffix("/caption.jpg") {
            #expect(!KeeperPolicy.hasAddedBorders(caption), "a band at the bottom alone is no added border")
        }
        for group in Grouper().groups(of: photos) {
            let keeper = try #require(byID[group.keeper])
            #expect(!keeper.path.hasSuffix("/mat.jpg"), "the framed copy kept: \(group.keeperReason)")
            #expect(keeper.width * keeper.height == 1200 * 900)
        }
    }

    @Test("without mirror hashes, content boxes and bands, those edits stay apart")
    func eachFeatureIsNeeded() throws {
        var grouper = Grouper()
        grouper.plan.mirrors = false
        grouper.plan.contents = false
        grouper.plan.cropWindows.removeAll { FeatureWindow.bandWindows.contains($0) }
        grouper.plan.overlayWindows.removeAll { FeatureWindow.captionWindows.contains($0) }
        // At the crop radius these features were measured at: at 10 bits, the mat's 80% window
        // meets the other original's whole frame as well.
        grouper.plan.cropRadius = 8
        // (Edits of one photo may still meet each other: the mat and the caption share a white
        // bottom. Neither is a duplicate of its original; next to it in its folder, an edit the
        // judge cannot confirm may be offered as a similar shot, `SimilarNeighbours`.)
        for group in grouper.groups(of: try library()) where group.kind != .similar {
            let members = Set(group.members.map(\.photoID))
            #expect(members.isDisjoint(with: [1, 2]), "an original grouped without the features: \(members.sorted())")
        }
    }

    @Test("rows from pipeline 3 (50 windows, no mirror hash or box) still group by what they have")
    func olderRows() throws {
        var photos = try library()
        for index in photos.indices where photos[index].id == 1 {
            photos[index].windowPHashes = Array(photos[index].windowPHashes.prefix(FeatureWindow.cropsBeforePipeline4))
            photos[index].mirrorPHash = nil
        }
        let groups = Grouper().groups(of: photos)
        let scene = try #require(groups.first { $0.members.contains { $0.photoID == 1 } })
        // The mirror still meets the original from its own end, the bordered copy through its
        // own content box; the top cut and the caption need the original's bands.
        #expect(Set(scene.members.map(\.photoID)).isSuperset(of: [1, 11, 12]))
    }
}
