import Analysis

extension PairJudge {
    /// How far apart (chroma units, |ΔCb| + |ΔCr|) two frames' plain colours
    /// (`ChromaLayout.plainColour`) must be for a plain graphic to count as recoloured: five
    /// times `ChromaLayout.flatTolerance`, past what re-encoding and resizing move a flat
    /// colour (the end-to-end library's 2,000 true pairs: all within 6).
    static let recolouredDistance: Float = 15

    /// Fewer cells than this (of `ColourMask.side`², half of them) off the plain background in
    /// either window: a layout too plain to outweigh a change of colour.
    static let plainLayoutCells = ColourMask.side * ColourMask.side / 2

    /// Whether the pairing matches two plain graphics (a plain background, under half of the
    /// window off it: `ColourMask`) whose plain colours, both coloured, lie more than
    /// `recolouredDistance` apart. Such a layout, a shape or two in the same places, is common
    /// to different graphics in a large library, and their colours tell them apart; a recoloured
    /// copy of a graphic that plain is not told from another picture, and is not grouped.
    ///
    /// Measured (bench/RESULTS.md, "Plain graphics recoloured"): of the first 400 wrong pairs
    /// of the 220,000-file end-to-end library, 274 were near; 226 of those match here. Of the
    /// three corpora's 1,052 (original, copy) pairs and the library's first 2,000 true pairs,
    /// none does at a pairing that confirms it: the edits whose plain colours moved this far
    /// (grades and saturation changes of photos and artwork) have 94 or more of 144 cells off
    /// the background, save one, which the next paragraph is about.
    ///
    /// A plain colour near gray (under `ChromaLayout.saturationFloor`) says nothing: toning a
    /// gray photo (sepia, the hard set's warm grade of its foggy gray ColdRipple scene) moves
    /// its plain colour 30 chroma units. (Asking instead that the whole frame be of one colour
    /// let graphics of small shapes on a pale ground through: the library's precision fell
    /// from 0.967 to 0.942.)
    ///
    /// Says nothing for rows with pipeline 4's 8×8 chroma layout (too coarse for the shapes)
    /// or without colour.
    static func recolouredGraphic(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> Bool {
        guard ChromaLayout.side(of: a.chroma) == ChromaLayout.side, ChromaLayout.side(of: b.chroma) == ChromaLayout.side,
              let colourA = ChromaLayout.plainColour(chromaCells(a, 0)), let colourB = ChromaLayout.plainColour(chromaCells(b, 0)),
              abs(colourA.cb - colourB.cb) + abs(colourA.cr - colourB.cr) > recolouredDistance,
              saturation(colourA) >= ChromaLayout.saturationFloor, saturation(colourB) >= ChromaLayout.saturationFloor,
              let cellsA = maskCells(a, pairing.slotA), let cellsB = maskCells(b, pairing.slotB),
              let foreground = ColourMask.foregroundCells(cellsA, cellsB) else { return false }
        return foreground < plainLayoutCells
    }

    private static func saturation(_ colour: (cb: Float, cr: Float)) -> Float {
        (colour.cb * colour.cb + colour.cr * colour.cr).squareRoot()
    }

    /// The colours of `slot`'s window on `ColourMask`'s grid: luma from the layout thumbnail,
    /// chroma from the 16×16 chroma layout; nil without either.
    static func maskCells(_ photo: GroupingPhoto, _ slot: Int) -> [ColourMask.Cell]? {
        guard ChromaLayout.side(of: photo.chroma) == ChromaLayout.side,
              photo.thumbnail.count == LayoutThumbnail.side * LayoutThumbnail.side else { return nil }
        let mirrored = slot == Int(Candidate.mirrorSlot), window = window(photo, slot), side = ColourMask.side
        let thumbnail = mirrored ? LayoutThumbnail.mirrored(photo.thumbnail) : photo.thumbnail
        let luma = LayoutThumbnail.sampler(thumbnail).cells(window, columns: side, rows: side)
        let chroma = ChromaLayout.cells(of: photo.chroma, in: window, mirrored: mirrored, comparisonSide: side)
        return zip(luma, chroma).map { ColourMask.Cell(luma: $0, cb: $1.cb, cr: $1.cr) }
    }
}
