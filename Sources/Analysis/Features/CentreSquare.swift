/// The largest square centred in a frame: what a copy cropped to a square keeps (a 16:9 or 3:2
/// frame cut to 1:1 for a feed or a profile that shows squares, the crop tool's "square" preset).
///
/// No fixed window finds such a copy of a wide frame: a square keeps 56% of a 16:9 frame's
/// width, 62.5% of a 16:10 one's and 67% of a 3:2 one's, past the 80% windows and bands
/// (`FeatureWindow.crops`), and the copy's whole frame is 8 to 42 bits from the original's. On
/// the unseen edits (bench/unseen-edits.py), 32 of 73 square crops were found, all of frames
/// within 1.6 of square. The square's pHash is worked out where results are stored, from the
/// 32×32 layout thumbnail (pHash's own input: the frame's area averages on a grid that ignores
/// its aspect ratio, so the square is the thumbnail's middle columns, or rows, stretched back to
/// 32): it needs nothing a worker does not already send. docs/FEATURES.md, "Square crops".
public enum CentreSquare {
    /// Frames whose longer side is less than this many times the shorter have no centre square
    /// of their own: the 90% and 80% windows and the bands already hold a square cut from a
    /// 5:4 frame (80% of its width), and nearer square the square is nearly the frame itself,
    /// which the frame's own lookup finds.
    public static let leastAspect = 1.25
    /// Nor have frames longer than this many times their shorter side: the square of a panorama
    /// keeps under a third of it, a part of the scene as much as an edit of the picture, and
    /// often a plain part. The hard set's look-alike strips (the top 35% of a photo, 4.6 times as
    /// wide as high) have a centre square of plain sky that its photo's whole frame confirms
    /// (layout difference 0.047, past no limit); the unseen edits' square crops of frames up to
    /// 2.6 times as wide are all found with this bound (docs/FEATURES.md, "Square crops").
    public static let greatestAspect = 3.0

    /// The centre square of a frame of `width` × `height` pixels, in fractions of its sides; nil
    /// for frames nearer square than `leastAspect`, longer than `greatestAspect`, or of no size.
    public static func window(width: Int, height: Int) -> FeatureWindow? {
        guard width > 0, height > 0 else { return nil }
        let aspect = Double(width) / Double(height), longer = max(aspect, 1 / aspect)
        guard longer >= leastAspect, longer <= greatestAspect else { return nil }
        if aspect > 1 {
            let kept = 1 / aspect
            return FeatureWindow(x: (1 - kept) / 2, y: 0, width: kept, height: 1)
        }
        return FeatureWindow(x: 0, y: (1 - aspect) / 2, width: 1, height: aspect)
    }

    /// The pHash of the centre square of a `width` × `height` frame, from its layout thumbnail:
    /// the square's 32×32 area averages, resampled from the thumbnail's (`CentreSquareTests`
    /// measures how close it comes to a square copy's own pHash). Nil for frames without a
    /// centre square (`window`), or without a thumbnail (rows from before pipeline 3).
    public static func pHash(thumbnail: [UInt8], width: Int, height: Int) -> UInt64? {
        let side = LayoutThumbnail.side
        guard thumbnail.count == side * side, let window = window(width: width, height: height) else { return nil }
        return PerceptualHash.pHash(cells: LayoutThumbnail.averages(ofPlane: thumbnail, side: side, in: window, columns: 32, rows: 32))
    }
}
