@testable import Coordinator
import Analysis
import Testing

/// Two graphics with one shape in the same place, coloured independently, pass the gray
/// layout, the hue check and the colour order alike; their plain backgrounds lie far apart in
/// colour, and a layout that plain is not evidence enough to call that an edit
/// (`PairJudge.recolouredGraphic`). A gray graphic toned warm is an edit. On photos analysed
/// for real.
@Suite("Plain graphics recoloured", .timeLimit(.minutes(2)))
struct RecolouredGraphicsTests {
    typealias Colour = FlatGraphicsGroupingTests.Colour

    /// One rectangle of `shape` on `background`, 480×360: about a seventh of the frame.
    static func graphic(background: Colour, shape: Colour) -> RGBImage {
        let width = 480, height = 360
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let colour = (250..<430).contains(x) && (60..<200).contains(y) ? shape : background
                pixels[(y * width + x) * 3] = UInt8(colour.red)
                pixels[(y * width + x) * 3 + 1] = UInt8(colour.green)
                pixels[(y * width + x) * 3 + 2] = UInt8(colour.blue)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    // A: dark red ground, a green shape. B: pink-red ground, a teal shape. The shapes are
    // brighter than their grounds in both (one gray layout), the hues are 13° and 25° apart,
    // and every channel keeps its order: only how far the grounds' colours lie apart tells.
    static let a = graphic(background: (110, 20, 30), shape: (70, 180, 120))
    static let b = graphic(background: (190, 40, 90), shape: (110, 200, 190))
    static let gray = graphic(background: (130, 130, 130), shape: (60, 60, 60))

    func library() throws -> [GroupingPhoto] {
        [
            try GroupingPhoto.analysed(1, "/a/graphic.jpg", Self.a),
            try GroupingPhoto.analysed(2, "/a/graphic-small.jpg", Self.a.resized(width: 240, height: 180)),
            try GroupingPhoto.analysed(3, "/b/other.jpg", Self.b),
            try GroupingPhoto.analysed(4, "/b/other-small.jpg", Self.b.resized(width: 240, height: 180)),
            try GroupingPhoto.analysed(5, "/c/gray.jpg", Self.gray),
            try GroupingPhoto.analysed(6, "/c/gray-sepia.jpg", FlatGraphicsGroupingTests.edited(Self.gray) { ($0.red * 1.1, $0.green * 0.97, $0.blue * 0.78) }),
        ]
    }

    @Test("each graphic groups with its own copy; the toned gray graphic stays with its original")
    func apart() throws {
        let groups = Grouper().groups(of: try library()).filter { $0.kind != .similar }.map { Set($0.members.map(\.photoID)) }
        #expect(Set(groups) == [[1, 2], [3, 4], [5, 6]], "\(groups)")
    }

    @Test("the layouts, hues and colour orders confirm the two graphics; the recoloured plain ground is what tells them apart")
    func recolouredGroundDecides() throws {
        let photos = try library()
        let a = photos[0], b = photos[2], whole = Grouper.Pairing(slotA: 0, slotB: 0)
        #expect(LayoutThumbnail.evidenceDifference(PairJudge.cells(a, 0), PairJudge.cells(b, 0)) <= PairJudge().frameConfirmation)
        #expect(!PairJudge.coloursDisagree(a, b, whole))
        #expect(PairJudge.recolouredGraphic(a, b, whole))
        #expect(PairJudge().relation(a, b, whole) == .distinct)
        // Its own copy: the same ground. The toned gray graphic: its ground was gray.
        #expect(!PairJudge.recolouredGraphic(a, photos[1], whole))
        #expect(!PairJudge.recolouredGraphic(photos[4], photos[5], whole))
        #expect(PairJudge().relation(photos[4], photos[5], whole) == .near)
    }

    @Test("rows with pipeline 4's 8×8 chroma layout are not judged by it")
    func oldRows() throws {
        let photos = try library()
        var a = photos[0], b = photos[2]
        for photo in [0, 1] {
            let side = ChromaLayout.side, old = 8
            let source = photo == 0 ? a.chroma : b.chroma
            // Every other cell of every other row: the 8×8 grid of pipeline 4's size.
            var downsampled: [UInt8] = []
            for plane in 0..<2 {
                for row in 0..<old {
                    for column in 0..<old {
                        let index: Int = plane * side * side + 2 * row * side + 2 * column
                        downsampled.append(source[index])
                    }
                }
            }
            if photo == 0 { a.chroma = downsampled } else { b.chroma = downsampled }
        }
        #expect(ChromaLayout.side(of: a.chroma) == 8)
        #expect(!PairJudge.recolouredGraphic(a, b, Grouper.Pairing(slotA: 0, slotB: 0)))
    }
}
