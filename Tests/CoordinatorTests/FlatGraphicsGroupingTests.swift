@testable import Coordinator
import Analysis
import Testing

/// Two graphics of the same flat shapes in the same places, coloured independently, are
/// different pictures even when their gray layouts and their hues agree; their own copies,
/// a graded copy and a more saturated copy stay with them (`ColourOrder`). On photos analysed
/// for real.
@Suite("Flat graphics told apart by colour order", .timeLimit(.minutes(5)))
struct FlatGraphicsGroupingTests {
    typealias Colour = (red: Double, green: Double, blue: Double)

    /// Three rectangles of `shape` on `background`, 480×360.
    static func graphic(background: Colour, shape: Colour) -> RGBImage {
        let width = 480, height = 360
        let boxes = [(40, 200, 140, 120), (260, 60, 160, 90), (300, 220, 120, 100)]  // x, y, width, height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let inShape = boxes.contains { x >= $0.0 && x < $0.0 + $0.2 && y >= $0.1 && y < $0.1 + $0.3 }
                let colour = inShape ? shape : background
                pixels[(y * width + x) * 3] = UInt8(colour.red)
                pixels[(y * width + x) * 3 + 1] = UInt8(colour.green)
                pixels[(y * width + x) * 3 + 2] = UInt8(colour.blue)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Each pixel through `edit`, clamped.
    static func edited(_ image: RGBImage, _ edit: (Colour) -> Colour) -> RGBImage {
        var out = image
        for index in stride(from: 0, to: image.pixels.count, by: 3) {
            let colour = edit((Double(image.pixels[index]), Double(image.pixels[index + 1]), Double(image.pixels[index + 2])))
            for (offset, value) in [colour.red, colour.green, colour.blue].enumerated() {
                out.pixels[index + offset] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return out
    }

    /// Moved away from its gray by half again (a saturation slider at +50%).
    static func saturated(_ colour: Colour) -> Colour {
        let luma = 0.299 * colour.red + 0.587 * colour.green + 0.114 * colour.blue
        return (luma + 1.5 * (colour.red - luma), luma + 1.5 * (colour.green - luma), luma + 1.5 * (colour.blue - luma))
    }

    // A: a saturated salmon background, grayish dark shapes. B: a grayish pink background,
    // saturated red shapes. Both backgrounds have one hue (about 109°), the shapes are darker
    // than the background in both (the same gray layout), but A's background is redder than its
    // shapes and B's is less red: no edit reorders red that way.
    static let a = graphic(background: (200, 120, 120), shape: (110, 100, 100))
    static let b = graphic(background: (160, 135, 135), shape: (175, 60, 60))

    func library() throws -> [GroupingPhoto] {
        [
            try GroupingPhoto.analysed(1, "/a/graphic.jpg", Self.a),
            try GroupingPhoto.analysed(2, "/a/graphic-small.jpg", Self.a.resized(width: 240, height: 180)),
            try GroupingPhoto.analysed(3, "/a/graphic-warm.jpg", Self.edited(Self.a) { ($0.red * 1.1, $0.green, $0.blue * 0.85) }),
            try GroupingPhoto.analysed(4, "/a/graphic-saturated.jpg", Self.edited(Self.a, Self.saturated)),
            try GroupingPhoto.analysed(5, "/b/other.jpg", Self.b),
            try GroupingPhoto.analysed(6, "/b/other-small.jpg", Self.b.resized(width: 240, height: 180)),
        ]
    }

    @Test("the other graphic and its copy form a group of their own; the copy, the grade and the saturated copy stay with theirs")
    func apart() throws {
        let photos = try library()
        let groups = Grouper().groups(of: photos).filter { $0.kind != .similar }.map { Set($0.members.map(\.photoID)) }
        #expect(Set(groups) == [[1, 2, 3, 4], [5, 6]], "\(groups)")
    }

    @Test("the hue check alone would not tell them apart, and the layouts confirm them: the colour order is what does")
    func colourOrderDecides() throws {
        let photos = try library()
        let a = photos[0], b = photos[4]
        let whole = Grouper.Pairing(slotA: 0, slotB: 0)
        #expect(PairJudge().relation(a, b, whole) == .distinct)
        #expect(!ChromaLayout.disagree(PairJudge.chromaCells(a, 0), PairJudge.chromaCells(b, 0)))
        #expect(LayoutThumbnail.evidenceDifference(PairJudge.cells(a, 0), PairJudge.cells(b, 0)) <= PairJudge().frameConfirmation)
        let order = try #require(ColourOrder.discordance(PairJudge.colourCells(a, 0, chroma: PairJudge.chromaCells(a, 0)),
                                                         PairJudge.colourCells(b, 0, chroma: PairJudge.chromaCells(b, 0))))
        #expect(order > ColourOrder.discordanceLimit)
    }
}
