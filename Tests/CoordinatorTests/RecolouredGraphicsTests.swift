@testable import Coordinator
import Analysis
import Testing

/// Plain graphics whose shapes landed in the same places pass the gray layout, the hue check
/// and the colour order alike; whether one colour edit carries one onto the other
/// (`ShapeColours`, `PairJudge.plainGraphicsVerdict`) tells them apart. Colour edits of one
/// graphic stay near. On photos analysed for real.
@Suite("Plain graphics recoloured", .timeLimit(.minutes(5)))
struct RecolouredGraphicsTests {
    typealias Colour = FlatGraphicsGroupingTests.Colour
    typealias Box = (x: Range<Int>, y: Range<Int>, colour: Colour)

    /// `boxes` on `background`, 480×360.
    static func graphic(background: Colour, _ boxes: [Box]) -> RGBImage {
        let width = 480, height = 360
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let colour = boxes.last { $0.x.contains(x) && $0.y.contains(y) }?.colour ?? background
                pixels[(y * width + x) * 3] = UInt8(colour.red)
                pixels[(y * width + x) * 3 + 1] = UInt8(colour.green)
                pixels[(y * width + x) * 3 + 2] = UInt8(colour.blue)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    static let large = (x: 250..<430, y: 60..<200), small = (x: 40..<200, y: 210..<330)
    // One slate ground, one yellow box; the second box magenta in one, blue in the other: a
    // minority of the shapes, so the median hue and the colour order still agree.
    static let magenta = graphic(background: (60, 90, 140), [(large.x, large.y, (230, 200, 40)), (small.x, small.y, (200, 40, 160))])
    static let blue = graphic(background: (60, 90, 140), [(large.x, large.y, (230, 200, 40)), (small.x, small.y, (82, 84, 234))])
    // A green box on a red ground.
    static let onRed = graphic(background: (170, 40, 40), [(large.x, large.y, (60, 170, 80))])

    typealias Edit = @Sendable (Colour) -> Colour
    /// Edits of a graphic's colours that keep it the same picture.
    static let edits: [(name: String, edit: Edit)] = [
        ("brighter", { ($0.red * 1.2, $0.green * 1.2, $0.blue * 1.2) }),
        ("more contrast", { (128 + ($0.red - 128) * 1.3, 128 + ($0.green - 128) * 1.3, 128 + ($0.blue - 128) * 1.3) }),
        ("more saturated", { colour in
            let luma = 0.299 * colour.red + 0.587 * colour.green + 0.114 * colour.blue
            return (luma + (colour.red - luma) * 1.4, luma + (colour.green - luma) * 1.4, luma + (colour.blue - luma) * 1.4)
        }),
        ("warm grade", { ($0.red * 1.1, $0.green, $0.blue * 0.85) }),
        ("black and white", { colour in
            let luma = 0.299 * colour.red + 0.587 * colour.green + 0.114 * colour.blue
            return (luma, luma, luma)
        }),
    ]

    func analysed(_ id: Int64, _ image: RGBImage) throws -> GroupingPhoto {
        try GroupingPhoto.analysed(id, "/p/\(id).jpg", image)
    }

    @Test("each graphic groups with its own copy, not with the graphic whose shapes it shares")
    func apart() throws {
        let photos = [
            try analysed(1, Self.magenta), try analysed(2, Self.magenta.resized(width: 240, height: 180)),
            try analysed(3, Self.blue), try analysed(4, Self.blue.resized(width: 240, height: 180)),
            try analysed(5, Self.onRed), try analysed(6, Self.onRed.resized(width: 240, height: 180)),
        ]
        let groups = Grouper().groups(of: photos).filter { $0.kind != .similar }.map { Set($0.members.map(\.photoID)) }
        #expect(Set(groups) == [[1, 2], [3, 4], [5, 6]], "\(groups)")
    }

    @Test("layouts, hues and colour orders confirm the two graphics; the box of another colour tells them apart")
    func coloursDecide() throws {
        let (first, second, what) = (Self.magenta, Self.blue, "magenta and blue box")
        let a = try analysed(1, first), b = try analysed(2, second), whole = Grouper.Pairing(slotA: 0, slotB: 0)
        #expect(LayoutThumbnail.evidenceDifference(PairJudge.cells(a, 0), PairJudge.cells(b, 0)) <= PairJudge().frameConfirmation, "\(what)")
        #expect(!PairJudge.coloursDisagree(a, b, whole), "\(what)")
        let colours = try #require(PairJudge.plainGraphicColours(a, b, whole, within: .twoEdits))
        #expect(colours.disagrees(within: .twoEdits), "\(what): \(colours)")
        #expect(PairJudge.plainGraphicsVerdict(a, b, whole) == .differ)
        #expect(PairJudge().relation(a, b, whole) == .distinct, "\(what)")
    }

    @Test("two plain graphics are judged the same whatever order their pairings come in (rules 17)")
    func orderOfPairings() throws {
        // A copy cut to a window and the two graphics whose second box differs: every pairing
        // candidate search can make, in its order and reversed, and with the whole frames first.
        let pairs = [
            (try analysed(1, Self.magenta), try analysed(2, Self.magenta.cropped(x: 24, y: 18, width: 432, height: 324)), PairRelation?.some(.near)),
            (try analysed(3, Self.magenta), try analysed(4, Self.blue), PairRelation?.some(.distinct)),
        ]
        let judge = PairJudge()
        for (a, b, expected) in pairs {
            let pairings = AnalysedRows.pairings(a, b)
            for order in [pairings, pairings.reversed(), pairings.sorted { ($0.slotA + $0.slotB) > ($1.slotA + $1.slotB) }] {
                var cache = LayoutCellCache()
                #expect(judge.relation(a, b, pairings: order, rows: (0, 1), cache: &cache) == expected, "\(a.id)–\(b.id), first \(order[0])")
            }
        }
    }

    @Test("colour edits of a plain graphic are edits: near", arguments: RecolouredGraphicsTests.edits.indices)
    func editsStayNear(_ index: Int) throws {
        let edit = Self.edits[index]
        for original in [Self.magenta, Self.onRed] {
            let a = try analysed(1, original), b = try analysed(2, FlatGraphicsGroupingTests.edited(original, edit.edit))
            let whole = Grouper.Pairing(slotA: 0, slotB: 0)
            #expect(PairJudge.plainGraphicsVerdict(a, b, whole) == .oneEdit,
                    "\(edit.name): \(String(describing: PairJudge.plainGraphicColours(a, b, whole, within: .oneEdit)))")
            #expect(PairJudge().relation(a, b, whole) == .near, "\(edit.name)")
        }
    }

    @Test("a crop of a plain graphic is near; cropped and recoloured, matched through a window only, it is not confirmed (rules 19)")
    func cropAndRecolour() throws {
        let judge = PairJudge()
        for original in [Self.magenta, Self.onRed] {
            // 10% off every side: too much for the whole frames to confirm.
            let crop = original.cropped(x: 48, y: 36, width: 384, height: 288)
            let a = try analysed(1, original), plainCrop = try analysed(2, crop)
            var cache = LayoutCellCache()
            #expect(judge.relation(a, plainCrop, pairings: AnalysedRows.pairings(a, plainCrop), rows: (0, 1), cache: &cache) == .near)
            // Edits that move both grounds' colour past `ColourMask.tolerance` (more contrast or
            // saturation moves the slate ground less: those stay near).
            for edit in Self.edits where ["brighter", "warm grade"].contains(edit.name) {
                let b = try analysed(3, FlatGraphicsGroupingTests.edited(crop, edit.edit))
                let pairings = AnalysedRows.pairings(a, b)
                let framesConfirm = pairings.contains { pairing in
                    PairJudge.wholeFrames(pairing)
                        && LayoutThumbnail.evidenceDifference(PairJudge.cells(a, pairing.slotA), PairJudge.cells(b, pairing.slotB)) <= judge.frameConfirmation
                }
                #expect(!framesConfirm, "\(edit.name)")
                // A window lines them up, and one colour edit explains them: only the ground's
                // colour holds them back.
                let windowed = pairings.filter { !PairJudge.wholeFrames($0) && PairJudge.plainGraphicsVerdict(a, b, $0) == .oneEdit }
                #expect(windowed.contains { !PairJudge.samePlainGround(PairJudge.maskCells(a, $0.slotA), PairJudge.maskCells(b, $0.slotB)) }, "\(edit.name)")
                var cache = LayoutCellCache()
                #expect(judge.relation(a, b, pairings: pairings, rows: (0, 2), cache: &cache) == nil, "\(edit.name)")
            }
        }
    }

    /// The colour moved away from its gray by `factor` (a saturation slider).
    static func saturation(_ factor: Double) -> Edit {
        { colour in
            let luma = 0.299 * colour.red + 0.587 * colour.green + 0.114 * colour.blue
            return (luma + (colour.red - luma) * factor, luma + (colour.green - luma) * factor, luma + (colour.blue - luma) * factor)
        }
    }

    @Test("a paler and a more saturated copy are each one edit from the original and two from each other: one group")
    func twoCopiesOneGroup() throws {
        for original in [Self.magenta, Self.onRed] {
            let paler = FlatGraphicsGroupingTests.edited(original, Self.saturation(0.6))
            let stronger = FlatGraphicsGroupingTests.edited(original, Self.saturation(1.6))
            let photos = [try analysed(1, original), try analysed(2, paler), try analysed(3, stronger)]
            let whole = Grouper.Pairing(slotA: 0, slotB: 0)
            #expect(PairJudge.plainGraphicsVerdict(photos[0], photos[1], whole) == .oneEdit)
            #expect(PairJudge.plainGraphicsVerdict(photos[0], photos[2], whole) == .oneEdit)
            // Past one edit of each other (a scale of 2.7), within two: not "apart".
            #expect(PairJudge.plainGraphicsVerdict(photos[1], photos[2], whole) == .unsure)
            #expect(PairJudge().relation(photos[1], photos[2], whole) == nil)
            let groups = Grouper().groups(of: photos).filter { $0.kind != .similar }.map { Set($0.members.map(\.photoID)) }
            #expect(groups == [[1, 2, 3]], "\(groups)")
        }
    }

    @Test("rows with pipeline 4's 8×8 chroma layout are not judged by it")
    func oldRows() throws {
        var a = try analysed(1, Self.magenta), b = try analysed(2, Self.blue)
        for photo in [0, 1] {
            let side = ChromaLayout.side, old = 8
            let source = photo == 0 ? a.chroma : b.chroma
            // Every other cell of every other row: the 8×8 grid of pipeline 4's size.
            var downsampled: [UInt8] = []
            for plane in 0..<2 {
                for row in 0..<old {
                    for column in 0..<old {
                        downsampled.append(source[plane * side * side + 2 * row * side + 2 * column])
                    }
                }
            }
            if photo == 0 { a.chroma = downsampled } else { b.chroma = downsampled }
        }
        #expect(ChromaLayout.side(of: a.chroma) == 8)
        #expect(PairJudge.plainGraphicColours(a, b, Grouper.Pairing(slotA: 0, slotB: 0), within: .oneEdit) == nil)
    }
}
