/// A photo's frame turned a quarter turn clockwise: what a copy whose pixels were turned 90°
/// (saved upright after a rotate tool, with no EXIF flag to undo it) looks like next to it.
///
/// Every plane a row keeps of its frame is square (the 32×32 layout thumbnail, the 64×64
/// detail layout, the 16×16 or 8×8 chroma planes): each is the frame's area averages on a grid
/// that ignores its aspect ratio, and a turn commutes with that grid. So the thumbnail of a
/// copy turned clockwise is the original's thumbnail turned, up to rounding, and so is every
/// other plane: the judge compares a turned pair as two whole frames once one side's planes
/// are turned (`PairJudge+Turned`).
///
/// One turn is enough to find both: a copy turned clockwise has the original's turned frame
/// as its frame; a copy turned counter-clockwise is the original turned clockwise *from the
/// copy's* side, so the copy's turned frame is the original's frame. A half turn (an upside-down
/// copy) is not looked for (docs/FEATURES.md, "Turned copies").
public enum TurnedFrame {
    /// A `side`² plane turned 90° clockwise: the cell at (row, column) of the result is the
    /// plane's at (side − 1 − column, row); the top-left cell ends at the top right.
    public static func turned(_ plane: [UInt8], side: Int) -> [UInt8] {
        precondition(plane.count == side * side, "the plane must be \(side)×\(side)")
        return [UInt8](unsafeUninitializedCapacity: plane.count) { out, initialized in
            for row in 0..<side {
                for column in 0..<side { out[row * side + column] = plane[(side - 1 - column) * side + row] }
            }
            initialized = plane.count
        }
    }

    /// A layout thumbnail or detail layout (`LayoutThumbnail.planeSide`) turned.
    public static func turned(_ plane: [UInt8]) -> [UInt8] {
        turned(plane, side: LayoutThumbnail.planeSide(plane))
    }

    /// A chroma layout (`ChromaLayout`: its Cb plane, then its Cr plane) turned; anything else
    /// (empty: a grayscale photo) as it is.
    public static func turnedChroma(_ layout: [UInt8]) -> [UInt8] {
        guard let side = ChromaLayout.side(of: layout) else { return layout }
        let cells = side * side
        return turned(Array(layout[0..<cells]), side: side) + turned(Array(layout[cells...]), side: side)
    }

    /// Where `window` of the frame lies in the frame turned clockwise.
    public static func turned(_ window: FeatureWindow) -> FeatureWindow {
        FeatureWindow(x: 1 - window.y - window.height, y: window.x, width: window.height, height: window.width)
    }

    /// The pHash of the frame turned clockwise, from its layout thumbnail: the thumbnail is
    /// pHash's own input (the frame's 32×32 area averages), rounded to gray levels, so this is
    /// the turned copy's pHash up to that rounding (`TurnedFrameTests` measures how close).
    /// Nil without a thumbnail (rows from before pipeline 3). Worked out where results are
    /// stored (and for stored rows once, by a migration): it needs nothing a worker does not
    /// already send.
    public static func pHash(thumbnail: [UInt8]) -> UInt64? {
        let side = LayoutThumbnail.side
        guard thumbnail.count == side * side else { return nil }
        return PerceptualHash.pHash(cells: turned(thumbnail, side: side).map(Float.init))
    }
}
