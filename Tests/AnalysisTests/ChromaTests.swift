@testable import Analysis
import Testing

/// Colour: every decoder hands its chroma on, and the layout check tells a colour variant of
/// one design from a colour grade of it (docs/FEATURES.md, "Colour").
@Suite("Chroma layouts", .timeLimit(.minutes(5)))
struct ChromaTests {
    static let scene = SyntheticPhoto.make(seed: 61, width: 640, height: 480)

    func analyse(_ bytes: [UInt8], _ path: String) throws -> PhotoFeatures {
        try PhotoAnalyzer.analyze(bytes, path: path, options: AnalysisOptions())
    }

    func jpeg(_ image: RGBImage) throws -> [UInt8] {
        try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: 90)
    }

    /// Each pixel through `map` (r, g, b) → (r, g, b).
    func recoloured(_ image: RGBImage, _ map: (Double, Double, Double) -> (Double, Double, Double)) -> RGBImage {
        var out = image
        for index in stride(from: 0, to: image.pixels.count, by: 3) {
            let (r, g, b) = map(Double(image.pixels[index]), Double(image.pixels[index + 1]), Double(image.pixels[index + 2]))
            for (offset, value) in [r, g, b].enumerated() { out.pixels[index + offset] = UInt8(max(0, min(255, value.rounded()))) }
        }
        return out
    }

    func hueDifference(_ a: PhotoFeatures, _ b: PhotoFeatures) -> Float? {
        ChromaLayout.hueDifference(ChromaLayout.cells(of: a.chroma, in: .full), ChromaLayout.cells(of: b.chroma, in: .full))
    }

    @Test("JPEG, PNG and WebP give the same chroma layout of one picture (HEIF: HEIFPreviewTests)")
    func everyFormat() throws {
        let reference = try analyse(try jpeg(Self.scene), "a.jpg").chroma
        #expect(reference.count == 2 * ChromaLayout.side * ChromaLayout.side)
        let png = try #require(PNGDecoder.encode(rgb: Self.scene.pixels, width: 640, height: 480))
        let webp = try #require(WebPDecoder.encode(rgb: Self.scene.pixels, width: 640, height: 480, quality: 85))
        let formats = [("png", try analyse(png, "a.png").chroma), ("webp", try analyse(webp, "a.webp").chroma)]
        for (name, chroma) in formats {
            #expect(chroma.count == 2 * ChromaLayout.side * ChromaLayout.side, "\(name)")
            let worst = zip(reference, chroma).map { abs(Int($0) - Int($1)) }.max() ?? 255
            #expect(worst <= 10, "\(name): a cell differs by \(worst) levels")
        }
    }

    @Test("a CMYK JPEG has no chroma layout; a red one has Cr high and Cb low")
    func grayAndRed() throws {
        // A CMYK JPEG is read as luma only, as a grayscale one is.
        let plain = RGBImage(width: 64, height: 48, pixels: [UInt8](repeating: 90, count: 64 * 48 * 3))
        let cmyk = try JPEGEncoder.encode(rgb: plain.pixels, width: 64, height: 48, options: .init(quality: 90, colorSpace: .plainCMYK))
        #expect(try analyse(cmyk, "g.jpg").chroma.isEmpty)
        let red = RGBImage(width: 64, height: 48, pixels: (0..<(64 * 48)).flatMap { _ in [220, 30, 30] as [UInt8] })
        let chroma = try analyse(try jpeg(red), "r.jpg").chroma
        let cells = ChromaLayout.side * ChromaLayout.side
        #expect(chroma.count == 2 * cells && chroma[..<cells].allSatisfy { $0 < 100 } && chroma[cells...].allSatisfy { $0 > 200 }, "\(chroma)")
    }

    @Test("the chroma layout follows the EXIF orientation, as the luma does")
    func oriented() throws {
        // Left half red, right half blue, stored rotated: orientation 6 shows it upright.
        var image = RGBImage(width: 64, height: 48, pixels: [UInt8](repeating: 0, count: 64 * 48 * 3))
        for y in 0..<48 { for x in 0..<64 { let p = (y * 64 + x) * 3; image.pixels[p] = x < 32 ? 220 : 20; image.pixels[p + 2] = x < 32 ? 20 : 220 } }
        let stored = image.rotatedCounterClockwise()
        let bytes = try JPEGEncoder.encode(rgb: stored.pixels, width: stored.width, height: stored.height, quality: 90,
                                           exif: EXIFBuilder.orientationBlock(6))
        let chroma = try analyse(bytes, "o.jpg").chroma
        // Red: Cb low, Cr high; blue: Cb high, Cr a little under 128.
        let cells = ChromaLayout.side * ChromaLayout.side, last = ChromaLayout.side - 1
        let cb = Array(chroma[..<cells]), cr = Array(chroma[cells...])
        #expect(cb[0] < 110 && cr[0] > 200 && cb[last] > 200 && cr[last] < 128, "the red half is on the left when shown: \(chroma)")
    }

    @Test("a warm grade keeps its hues; a palette change does not; a gray copy says nothing")
    func gradeVersusVariant() throws {
        let original = try analyse(try jpeg(Self.scene), "o.jpg")
        let warm = try analyse(try jpeg(recoloured(Self.scene) { r, g, b in (r * 1.1, g, b * 0.85) }), "w.jpg")
        let swapped = try analyse(try jpeg(recoloured(Self.scene) { r, g, b in (b, g, r) }), "s.jpg")
        let gray = try analyse(try jpeg(recoloured(Self.scene) { r, g, b in let y = 0.299 * r + 0.587 * g + 0.114 * b; return (y, y, y) }), "g.jpg")
        let warmDifference = try #require(hueDifference(original, warm))
        #expect(warmDifference < ChromaLayout.hueLimit, "\(warmDifference)")
        let swappedDifference = try #require(hueDifference(original, swapped))
        #expect(swappedDifference > ChromaLayout.hueLimit, "\(swappedDifference)")
        #expect(hueDifference(original, gray) == nil)
    }

    @Test("on one plain background hue, the shapes' colours decide: other shapes in other colours disagree, the same picture agrees")
    func plainBackgroundEvidence() {
        // 6×6 cells: a purple background, a shape in the bottom-right quarter.
        func window(shape: (cb: Float, cr: Float)) -> [(cb: Float, cr: Float)] {
            (0..<36).map { $0 / 6 >= 3 && $0 % 6 >= 3 ? shape : (cb: 40, cr: 30) }
        }
        let orange = window(shape: (cb: -40, cr: 35)), green = window(shape: (cb: -30, cr: -35))
        // Over all cells the background's agreement carries the median: the same colours.
        #expect(ChromaLayout.hueDifference(orange, green).map { $0 < ChromaLayout.hueLimit } == true)
        #expect(ChromaLayout.disagree(orange, green))
        #expect(!ChromaLayout.disagree(orange, orange))
        let shifted = orange.map { (cb: $0.cb + 2, cr: $0.cr - 1) }  // a re-encode's drift
        #expect(!ChromaLayout.disagree(orange, shifted))
    }
}

/// `ColourOrder` on cells made by hand: what edits keep and what independent colouring breaks.
@Suite("Colour order")
struct ColourOrderTests {
    /// Cells of a picture: a luma and a chroma per cell, varied so that many pairs are clearly ordered.
    static let cells: [ColourOrder.Colour] = (0..<36).map { index in
        let luma = Float(40 + (index * 37) % 180), cb = Float((index * 23) % 60 - 30), cr = Float((index * 41) % 70 - 35)
        return ColourOrder.Colour(luma: luma, cb: cb, cr: cr)
    }

    static func mapped(_ cells: [ColourOrder.Colour], _ edit: (Float, Float, Float) -> (Float, Float, Float)) -> [ColourOrder.Colour] {
        cells.map { colour in
            let (r, g, b) = edit(colour.red, colour.green, colour.blue)
            let luma = 0.299 * r + 0.587 * g + 0.114 * b
            return ColourOrder.Colour(luma: luma, cb: -0.168736 * r - 0.331264 * g + 0.5 * b, cr: 0.5 * r - 0.418688 * g - 0.081312 * b)
        }
    }

    @Test("per-channel curves and saturation changes keep the order; shuffled colours do not; gray says nothing")
    func editsAndStrangers() throws {
        let cells = Self.cells
        let graded = Self.mapped(cells) { ($0 * 1.1, $1, $2 * 0.85) }
        // A rising curve (brighter mid-tones), the same on every channel.
        func curve(_ value: Float) -> Float { let x = max(0, min(255, value)) / 255; return 255 * x * (2 - x) }
        let brightened = Self.mapped(cells) { (curve($0), curve($1), curve($2)) }
        let saturated = cells.map { colour in
            let luma = 0.299 * colour.red + 0.587 * colour.green + 0.114 * colour.blue
            return ColourOrder.Colour(luma: luma, cb: colour.cb * 1.6, cr: colour.cr * 1.6)
        }
        for edit in [cells, graded, brightened, saturated] {
            let discordance = try #require(ColourOrder.discordance(cells, edit))
            #expect(discordance < 0.05)
            #expect(!ColourOrder.disagree(cells, edit))
        }
        // A graphic whose lumas lie close together (where colour, not luma, orders the
        // channels), and the same lumas with each cell's chroma taken from another cell: a
        // gray layout that agrees, colours that do not. (Where lumas spread wide, the channels
        // follow them and the gray layout decides.)
        let flat = cells.indices.map { ColourOrder.Colour(luma: Float(100 + ($0 * 7) % 30), cb: cells[$0].cb, cr: cells[$0].cr) }
        let stranger = flat.indices.map { ColourOrder.Colour(luma: Float(100 + ($0 * 7) % 30), cb: cells[($0 * 7 + 5) % 36].cb, cr: cells[($0 * 11 + 3) % 36].cr) }
        #expect(ColourOrder.disagree(flat, stranger))
        #expect(!ColourOrder.disagree(flat, Self.mapped(flat) { ($0 * 1.1, $1, $2 * 0.85) }))
        let gray = cells.map { ColourOrder.Colour(luma: 0.299 * $0.red + 0.587 * $0.green + 0.114 * $0.blue, cb: 0, cr: 0) }
        #expect(ColourOrder.discordance(cells, gray) == nil)
    }

    @Test("disagree, which stops once its answer is known, says what the discordance says: over the limit")
    func disagreeIsTheDiscordanceOverTheLimit() {
        // Random windows: independent pictures, copies with some cells reordered, gray ones
        // (no answer), and flat ones (few clear pairs): every path through the early stops.
        var random = SplitMix64(seed: 23)
        var over = 0, under = 0, silent = 0
        for trial in 0..<600 {
            func window(_ saturation: Float) -> [ColourOrder.Colour] {
                (0..<36).map { _ in
                    ColourOrder.Colour(luma: Float.random(in: 20...235, using: &random),
                                       cb: Float.random(in: -1...1, using: &random) * saturation,
                                       cr: Float.random(in: -1...1, using: &random) * saturation)
                }
            }
            let a = window(trial % 5 == 0 ? 2 : 60)
            var b = trial % 2 == 0 ? window(60) : Self.mapped(a) { ($0 * 1.1, $1, $2 * 0.9) }
            for index in 0..<(trial % 13) { b[(index * 7 + trial) % 36] = window(60)[0] }
            let discordance = ColourOrder.discordance(a, b)
            #expect(ColourOrder.disagree(a, b) == (discordance.map { $0 > ColourOrder.discordanceLimit } ?? false), "trial \(trial)")
            switch discordance {
            case nil: silent += 1
            case let value? where value > ColourOrder.discordanceLimit: over += 1
            default: under += 1
            }
        }
        #expect(over > 50 && under > 50 && silent > 50, "over \(over), under \(under), no answer \(silent)")
    }
}
