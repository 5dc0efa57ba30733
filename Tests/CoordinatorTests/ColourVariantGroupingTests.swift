@testable import Coordinator
import Analysis
import Synchronization
import Testing

/// Colour variants of one design (the same layout, other hues) are told apart by the chroma
/// layout, colour grades of a photo are not; on photos analysed for real.
@Suite("Colour variants", .timeLimit(.minutes(5)))
struct ColourVariantGroupingTests {
    static let design = SyntheticPhoto.make(seed: 71, width: 960, height: 720)

    /// The design with its chroma turned half way round the colour wheel and its luma kept:
    /// the same picture to every gray feature.
    static func otherPalette(_ image: RGBImage) -> RGBImage {
        var out = image
        for index in stride(from: 0, to: image.pixels.count, by: 3) {
            let r = Double(image.pixels[index]), g = Double(image.pixels[index + 1]), b = Double(image.pixels[index + 2])
            let y = 0.299 * r + 0.587 * g + 0.114 * b
            let cb = -(-0.168736 * r - 0.331264 * g + 0.5 * b), cr = -(0.5 * r - 0.418688 * g - 0.081312 * b)
            let rgb = [y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb]
            for (offset, value) in rgb.enumerated() { out.pixels[index + offset] = UInt8(max(0, min(255, value.rounded()))) }
        }
        return out
    }

    func library() throws -> [GroupingPhoto] {
        let warm = Self.design.pixels.enumerated().map { index, value in
            UInt8(min(255, (Double(value) * [1.1, 1, 0.85][index % 3]).rounded()))
        }
        let variant = Self.otherPalette(Self.design)
        return [
            try GroupingPhoto.analysed(1, "/a/design.jpg", Self.design),
            try GroupingPhoto.analysed(2, "/a/design-warm.jpg", RGBImage(width: 960, height: 720, pixels: warm)),
            try GroupingPhoto.analysed(3, "/a/design-small.jpg", Self.design.resized(width: 480, height: 360)),
            try GroupingPhoto.analysed(4, "/b/variant.jpg", variant),
            try GroupingPhoto.analysed(5, "/b/variant-small.jpg", variant.resized(width: 480, height: 360)),
        ]
    }

    @Test("the variant and its copy form a group of their own; the grade stays with its photo")
    func apart() throws {
        let groups = Grouper().groups(of: try library()).map { Set($0.members.map(\.photoID)) }
        #expect(Set(groups) == [[1, 2, 3], [4, 5]], "\(groups)")
    }

    /// The image's gray levels painted in one hue: `tint` gives each level's colour (a sepia
    /// print, a cyanotype).
    static func toned(_ image: RGBImage, _ tint: (Double) -> [Double]) -> RGBImage {
        var out = image
        for index in stride(from: 0, to: image.pixels.count, by: 3) {
            let y = 0.299 * Double(image.pixels[index]) + 0.587 * Double(image.pixels[index + 1]) + 0.114 * Double(image.pixels[index + 2])
            for (offset, value) in tint(y).enumerated() { out.pixels[index + offset] = UInt8(max(0, min(255, value.rounded()))) }
        }
        return out
    }

    static func sepia(_ y: Double) -> [Double] { [y * 1.07, y * 0.74 + 20, y * 0.43 + 10] }
    static func cyanotype(_ y: Double) -> [Double] { [y * 0.55, y * 0.85 + 10, y * 0.9 + 40] }

    /// Rules 41 (`ChromaLayout.onlyOneToned`): a toned copy's hues follow its grays, so the hue
    /// and colour-order checks say nothing of it against colours of several hues, as of a gray
    /// copy; two pictures toned in two hues are still two palettes.
    @Test("a sepia copy stays with its colour photo; a sepia and a cyanotype print of it stay apart")
    func tonedCopies() throws {
        let sepia = Self.toned(Self.design, Self.sepia), cyanotype = Self.toned(Self.design, Self.cyanotype)
        let photos = [try GroupingPhoto.analysed(1, "/a/design.jpg", Self.design),
                      try GroupingPhoto.analysed(2, "/a/design-sepia.jpg", sepia)]
        let frames = photos.map { PairJudge.chromaCells($0, 0) }
        // The premises: the design has colours of several hues, the copy one, and on hues alone
        // they are other pictures.
        try #require(ShapeColours.oneHue(frames[0], minimumCells: 9) == false && ShapeColours.oneHue(frames[1], minimumCells: 9) == true)
        try #require(ChromaLayout.disagree(frames[0], frames[1]))
        let groups = Grouper().groups(of: photos)
        #expect(groups.map { Set($0.members.map(\.photoID)) } == [[1, 2]] && groups.map(\.kind) == [.near], "\(groups)")

        let prints = [try GroupingPhoto.analysed(3, "/b/sepia.jpg", sepia), try GroupingPhoto.analysed(4, "/b/cyanotype.jpg", cyanotype)]
        #expect(Grouper().groups(of: prints).filter { $0.kind != .similar }.isEmpty)
    }

    @Test("without chroma layouts (rows before pipeline 4) the variant joins the design")
    func grayFeaturesAlone() throws {
        let photos = try library().map { photo in var photo = photo; photo.chroma = []; return photo }
        let groups = Grouper().groups(of: photos).map { Set($0.members.map(\.photoID)) }
        #expect(groups == [[1, 2, 3, 4, 5]], "\(groups)")
    }
}

/// Grouping with window hashes and layouts read apart (`GroupingFeatureSource`), as the
/// store's rows come.
@Suite("Features read where they are needed", .timeLimit(.minutes(5)))
struct FeatureSourceTests {
    struct LoadFailed: Error {}

    /// Features held in memory, recording which photos' layouts were asked for.
    final class HeldFeatures: GroupingFeatureSource {
        let photos: [Int64: GroupingPhoto]
        let asked = Mutex<Set<Int64>>([])
        let fails: Bool

        init(photos: [Int64: GroupingPhoto], fails: Bool = false) {
            self.photos = photos
            self.fails = fails
        }

        func candidateHashes(of ids: [Int64], plan: CandidatePlan, holdingCropWindows: Bool) throws -> CompactHashes {
            var hashes = CompactHashes(plan: plan, holdingCropWindows: holdingCropWindows)
            for id in ids {
                let photo = photos[id]!
                hashes.append(frame: photo.pHash, windows: photo.windowPHashes, mirror: photo.mirrorPHash,
                              content: photo.contentBox == nil ? nil : photo.contentPHash)
            }
            return hashes
        }

        func cropWindows(of ids: ArraySlice<Int64>, plan: CandidatePlan) throws -> [UInt64] {
            ids.flatMap { id in plan.cropWindows.map { photos[id]!.windowPHashes[$0] } }
        }

        func layouts(of ids: [Int64]) throws -> [Int64: PhotoLayout] {
            if fails { throw LoadFailed() }
            asked.withLock { $0.formUnion(ids) }
            return Dictionary(uniqueKeysWithValues: ids.map { ($0, PhotoLayout(thumbnail: photos[$0]!.thumbnail, chroma: photos[$0]!.chroma)) })
        }

        func windowHashes(of ids: [Int64]) throws -> [Int64: [UInt64]] {
            Dictionary(uniqueKeysWithValues: ids.map { ($0, photos[$0]!.windowPHashes) })
        }
    }

    func library() throws -> [GroupingPhoto] {
        try ColourVariantGroupingTests().library()
            + [try GroupingPhoto.analysed(9, "/c/alone.jpg", SyntheticPhoto.make(seed: 79, width: 640, height: 480))]
    }

    func light(_ photos: [GroupingPhoto]) -> [GroupingPhoto] {
        photos.map { photo in var photo = photo; photo.thumbnail = []; photo.chroma = []; photo.windowPHashes = []; return photo }
    }

    @Test("rows without windows or layouts plus a feature source group as rows with them, distances too, in batches of any size; only paired photos' layouts are read")
    func sameGroups() throws {
        let full = try library()
        let expected = Grouper().groups(of: full)
        let features = HeldFeatures(photos: Dictionary(uniqueKeysWithValues: full.map { ($0.id, $0) }))
        for batch in [1, 3, 1_000] {
            var grouper = Grouper()
            grouper.judgeBatch = batch
            #expect(try grouper.groups(of: light(full), features: features, shouldStop: { false }) == expected, "batch \(batch)")
        }
        #expect(!features.asked.withLock { $0 }.contains(9), "the photo no candidate pairs is never read")
        // Without the source the light rows fall back to what rows before pipeline 3 had (pHash
        // and dHash): the colour variant joins the design. The source's layouts split them.
        #expect(Grouper().groups(of: light(full)).map { Set($0.members.map(\.photoID)) } == [[1, 2, 3, 4, 5]])
    }

    @Test("a source that fails fails the grouping")
    func sourceFails() throws {
        let full = try library()
        let features = HeldFeatures(photos: Dictionary(uniqueKeysWithValues: full.map { ($0.id, $0) }), fails: true)
        #expect(throws: LoadFailed.self) { try Grouper().groups(of: light(full), features: features, shouldStop: { false }) }
    }
}
