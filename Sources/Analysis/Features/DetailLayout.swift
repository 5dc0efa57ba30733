/// The frame's 64×64 area averages, kept for the photos whose 32×32 layout thumbnail misstates
/// their windows: fine texture (a brick wall, gravel, grass, a star field).
///
/// The judge compares two windows as 12×12 cells resampled from each photo's 32×32 thumbnail
/// (`LayoutThumbnail`). A thumbnail cell is the mean of a sixteenth of a 512-pixel frame's
/// width; a comparison cell of a crop window starts inside one, and resampling takes the part
/// it covers as flat. Where the picture is smooth that is exact enough; where a texture's
/// period is about a cell (bricks 36 pixels wide), each comparison cell's mean follows where the
/// texture's period falls in it, and a crop of the wall differs from the wall's window by as
/// much as two different walls do. From a 64×64 plane the same cells come out nearly exact:
/// the holdout corpus's three crops of its brick wall differ from the wall's window by 0.106 to
/// 0.163 (the window limit is 0.06) from the 32×32 thumbnails and by 0.032 to 0.051 from 64×64
/// planes, its gravel's by 0.034–0.051 and 0.016–0.024 (bench/detail-layout.py).
///
/// Only photos that need it keep one (`kept`), 4 KB each: the test below kept it for 77 of the
/// development and holdout corpora's 836 files, all or most files of seven pictures of fine
/// texture or busy detail (brick, gravel, grass, a star field, a meadow, two busy wallpapers).
public enum DetailLayout {
    public static let side = 64
    public static let byteCount = side * side

    /// Windows the test resamples both ways: the whole frame, the 80% centre and two 90%
    /// windows (a corner and the centre), which is where a crop's cells start inside thumbnail
    /// cells.
    static let probes: [FeatureWindow] = [
        .full,
        FeatureWindow(x: 0.1, y: 0.1, width: 0.8, height: 0.8),
        FeatureWindow(x: 0, y: 0, width: 0.9, height: 0.9),
        FeatureWindow(x: 0.05, y: 0.05, width: 0.9, height: 0.9),
    ]
    /// The plane is kept when, in some probe, the comparison cells from the thumbnail differ
    /// from those from the plane (root mean square) by this share of how much the plane's
    /// cells vary (standard deviation, at least `flatSpread` gray levels, so that a plain
    /// frame's rounding is no texture). On the development and holdout corpora's 836 files
    /// (bench/detail-layout.py): the brick wall's 0.68–0.86, gravel 0.26–0.33, grass 0.25–0.29,
    /// the Hubble deep field 0.25; past 0.15, 77 files (all or most files of seven pictures);
    /// past 0.10, 137.
    public static let misstatedShare: Float = 0.15
    static let flatSpread: Float = 1

    /// The frame's `side`² area averages, rounded to gray levels, from the photo's sampler.
    public static func plane(_ sampler: AreaSampler) -> [UInt8] {
        sampler.cells(.full, columns: side, rows: side).map { UInt8(max(0, min(255, $0.rounded()))) }
    }

    /// `plane` if the photo's `thumbnail` misstates its windows (`misstatement` past
    /// `misstatedShare`), else empty: nothing to send or store.
    public static func kept(plane: [UInt8], thumbnail: [UInt8]) -> [UInt8] {
        misstatement(plane: plane, thumbnail: thumbnail) > misstatedShare ? plane : []
    }

    /// The largest, over the `probes`, of how far the thumbnail's comparison cells lie from the
    /// plane's, as a share of the plane's cells' spread.
    public static func misstatement(plane: [UInt8], thumbnail: [UInt8]) -> Float {
        let thumbnailSide = LayoutThumbnail.side, cellsSide = LayoutThumbnail.comparisonSide
        precondition(plane.count == byteCount && thumbnail.count == thumbnailSide * thumbnailSide)
        let fine = AreaSampler(GrayImage(width: side, height: side, pixels: plane))
        let coarse = AreaSampler(GrayImage(width: thumbnailSide, height: thumbnailSide, pixels: thumbnail))
        return probes.map { window in
            let exact = fine.cells(window, columns: cellsSide, rows: cellsSide)
            let resampled = coarse.cells(window, columns: cellsSide, rows: cellsSide)
            let count = Float(exact.count)
            let mean = exact.reduce(0, +) / count
            let spread = (exact.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / count).squareRoot()
            let misfit = (zip(exact, resampled).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } / count).squareRoot()
            return misfit / max(spread, flatSpread)
        }.max() ?? 0
    }

    /// Whether `bytes` is a detail layout (else none: a photo without texture, or a row from a
    /// worker before pipeline 8).
    public static func isLayout(byteCount: Int) -> Bool { byteCount == Self.byteCount }
}
