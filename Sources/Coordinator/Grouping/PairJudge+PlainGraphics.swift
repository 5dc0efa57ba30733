import Analysis

extension PairJudge {
    /// Fewer cells than this (of `ColourMask.side`², half of them) off the plain background in
    /// either window: a layout too plain to outweigh its colours.
    static let plainLayoutCells = ColourMask.side * ColourMask.side / 2

    /// What two plain graphics' colours say of them at a pairing.
    enum PlainGraphicsVerdict: Sendable, Equatable {
        /// Not plain graphics, or colours one colour edit explains.
        case oneEdit
        /// More than one colour edit apart, but within two: two edited copies of one graphic can
        /// be; not confirmed either way.
        case unsure
        /// Colours no two colour edits explain: other pictures.
        case differ
    }

    /// Whether the pairing matches two plain graphics (a plain background, under half of
    /// either window off it: `ColourMask`) whose colours no one colour edit explains
    /// (`ShapeColours`: the shapes do not follow one map, or the map cannot carry one
    /// background to the other), or not even two. Such a layout, a shape or two in the same
    /// places, is common to different graphics in a large library; their colours tell them apart.
    ///
    /// Measured (bench/RESULTS.md, "Shape colours"): of 1,017 wrong pairs the end-to-end
    /// library's rules 10 grouping joined as near, 911 are past one edit at their first
    /// confirming pairing; of its first 2,000 true pairs one, of the three corpora's 1,052
    /// (original, copy) pairs none; of 2,700 colour edits of generated graphics
    /// (bench/plain-edits.sh: brightness, contrast, gamma, curves, saturation, hue, grades, white
    /// balance, black and white, sepia), the judge keeps 2,137 near, giving up mostly
    /// per-channel stretches to full range (auto-contrast, equalise), strong white balances and
    /// sepia.
    ///
    /// Says nothing (`oneEdit`) for rows with pipeline 4's 8×8 chroma layout (too coarse for
    /// the shapes) or without colour.
    static func plainGraphicsVerdict(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> PlainGraphicsVerdict {
        plainGraphicsVerdict(maskCells(a, pairing.slotA), maskCells(b, pairing.slotB))
    }

    /// The verdict on the pairing's windows' `maskCells`, worked out once for both limits.
    static func plainGraphicsVerdict(_ cellsA: [ColourMask.Cell]?, _ cellsB: [ColourMask.Cell]?) -> PlainGraphicsVerdict {
        plainGraphicsVerdict(plainWindows(cellsA, cellsB))
    }

    /// The verdict on two windows' `plainWindows` (nil: not plain graphics, `oneEdit`).
    static func plainGraphicsVerdict(_ plain: PlainWindows?) -> PlainGraphicsVerdict {
        guard let plain else { return .oneEdit }
        guard let oneEdit = compare(plain, within: .oneEdit), oneEdit.disagrees(within: .oneEdit) else { return .oneEdit }
        guard let twoEdits = compare(plain, within: .twoEdits), twoEdits.disagrees(within: .twoEdits) else { return .unsure }
        return .differ
    }

    /// The relation a confirming pairing gives under the verdict: near within one edit; past two,
    /// distinct (a group never holds both); between, none.
    static func relation(_ verdict: PlainGraphicsVerdict) -> PairRelation? {
        switch verdict {
        case .oneEdit: .near
        case .unsure: nil
        case .differ: .distinct
        }
    }

    /// Whether two windows show their plain grounds in one colour, within `ColourMask.tolerance`
    /// (|ΔY| + |ΔCb| + |ΔCr|: the distance within which one window's cells count as its
    /// ground); true unless both are plain graphics (`plainWindows`). Asked of two plain
    /// graphics confirmed only through windows, with colours one edit explains (rules 19): a crop
    /// or an overlay and a colour edit together leave too little of a few flat shapes to tell
    /// one graphic from another whose shapes landed alike, so such a pair must show its colours
    /// unedited.
    ///
    /// Measured (bench/RESULTS.md, "One ground colour through windows"): of the end-to-end
    /// library's 307 wrong (keeper, member) pairs under rules 18, 267 go (precision 0.980 to
    /// 0.998, recall 0.998 kept); `bench/plain-edits.sh` keeps every crop, frame and turn of a
    /// graphic near (1,158 of 1,350, as before) and gives up 19 of 2,107 colour edits whose
    /// whole frames do not confirm (a shape with its ground's brightness reorders the layout's
    /// cells; only a band or a window leaving it out lines them up). A limit of 6 or 24 in
    /// place of 12 leaves 42 or 60 wrong pairs and keeps 2,085 or 2,095 of the colour edits.
    static func samePlainGround(_ cellsA: [ColourMask.Cell]?, _ cellsB: [ColourMask.Cell]?) -> Bool {
        samePlainGround(plainWindows(cellsA, cellsB))
    }

    /// `samePlainGround` on two windows' `plainWindows`, worked out once with the verdict's.
    static func samePlainGround(_ plain: PlainWindows?) -> Bool {
        guard let plain else { return true }
        return plain.backgroundA.colour.distance(to: plain.backgroundB.colour) <= ColourMask.tolerance
    }

    /// Whether the photo's whole frame is a plain graphic: a plain background (`ColourMask`)
    /// with under `plainLayoutCells` cells off it and no texture in it (`texturedGround`), and a
    /// 16×16 chroma layout. A pair is judged
    /// as plain graphics when both are (`relation`, through `LayoutCellCache.isPlainGraphic`).
    static func isPlainGraphic(_ photo: GroupingPhoto) -> Bool {
        guard let cells = maskCells(photo, 0), let ground = ColourMask.background(cells, fewerOffThan: plainLayoutCells) else { return false }
        return ColourMask.groundTexture(photo.thumbnail, side: LayoutThumbnail.side, foreground: ground.foreground) < texturedGround
    }

    /// A ground whose `ColourMask.groundTexture` reaches this is a photograph's textured ground
    /// (gravel, grass, a brick wall, wood grain), not a plain graphic's, however flat its
    /// colour reads on the grid. Measured (bench/RESULTS.md, "The corpora's last refused
    /// crops"): 0.16 median, 0.90 at the 99th percentile and 2.22 at the most over 22,831
    /// generated graphics of the end-to-end library that read as plain (30,000 sampled); 3.6
    /// (wood grain) to 21 (gravel after a contrast stretch) for the corpora's photos that read
    /// as plain, apart from a smooth gradient wallpaper (0.7–1.5), which stays a plain graphic.
    static let texturedGround: Float = 3

    /// `ShapeColours`' comparison of the pairing's windows when both are plain graphics;
    /// nil otherwise.
    static func plainGraphicColours(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing,
                                    within limits: ShapeColours.Limits) -> ShapeColours.Comparison? {
        plainWindows(maskCells(a, pairing.slotA), maskCells(b, pairing.slotB)).flatMap { compare($0, within: limits) }
    }

    /// Two plain graphics' windows: their cells and plain backgrounds (`ColourMask.background`).
    typealias PlainWindows = (a: [ColourMask.Cell], backgroundA: (colour: ColourMask.Cell, foreground: [Bool]),
                              b: [ColourMask.Cell], backgroundB: (colour: ColourMask.Cell, foreground: [Bool]))

    /// `ShapeColours`' comparison of two plain graphics' windows.
    private static func compare(_ plain: PlainWindows, within limits: ShapeColours.Limits) -> ShapeColours.Comparison? {
        ShapeColours.compare(plain.a, background: plain.backgroundA.colour, foreground: plain.backgroundA.foreground,
                             plain.b, background: plain.backgroundB.colour, foreground: plain.backgroundB.foreground, within: limits)
    }

    /// Two windows' cells with their plain backgrounds, when both are plain graphics (a plain
    /// background, under `plainLayoutCells` cells off it in either); nil otherwise.
    static func plainWindows(_ cellsA: [ColourMask.Cell]?, _ cellsB: [ColourMask.Cell]?) -> PlainWindows? {
        // Fewer than `plainLayoutCells` off both backgrounds together needs fewer off each.
        guard let cellsA, let cellsB, let backgroundA = ColourMask.background(cellsA, fewerOffThan: plainLayoutCells),
              let backgroundB = ColourMask.background(cellsB, fewerOffThan: plainLayoutCells) else { return nil }
        let either = zip(backgroundA.foreground, backgroundB.foreground).reduce(0) { $0 + ($1.0 || $1.1 ? 1 : 0) }
        guard either < plainLayoutCells else { return nil }
        return (cellsA, backgroundA, cellsB, backgroundB)
    }

    /// The colours of `slot`'s window on `ColourMask`'s grid: luma from the layout thumbnail,
    /// chroma from the 16×16 chroma layout; nil without either.
    static func maskCells(_ photo: GroupingPhoto, _ slot: Int) -> [ColourMask.Cell]? {
        guard ChromaLayout.side(of: photo.chroma) == ChromaLayout.side,
              photo.thumbnail.count == LayoutThumbnail.side * LayoutThumbnail.side else { return nil }
        if slot == Int(Candidate.turnedSlot) { return maskCells(photo.turned, 0) }
        let mirrored = slot == Int(Candidate.mirrorSlot), window = window(photo, slot), side = ColourMask.side
        let thumbnail = mirrored ? LayoutThumbnail.mirrored(photo.thumbnail) : photo.thumbnail
        let luma = LayoutThumbnail.averages(ofPlane: thumbnail, side: LayoutThumbnail.side, in: window, columns: side, rows: side)
        let chroma = ChromaLayout.cells(of: photo.chroma, in: window, mirrored: mirrored, comparisonSide: side)
        return zip(luma, chroma).map { ColourMask.Cell(luma: $0, cb: $1.cb, cr: $1.cr) }
    }
}
