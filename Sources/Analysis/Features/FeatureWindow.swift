/// A rectangle of an image in fractions of its width and height: where a feature looks.
///
/// Why windows: a global hash describes the whole frame, so a 5% crop shifts every coefficient
/// and a watermark in a corner can move a dark photo's hash by 30 bits. Hashing windows as well
/// lets a crop of a photo meet its original (the crop's whole frame is close to one of the
/// original's windows) and a photo with an overlay near an edge meet its clean copy (some
/// window leaves the overlay out). docs/FEATURES.md has the reasoning and the numbers.
public struct FeatureWindow: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole frame.
    public static let full = FeatureWindow(x: 0, y: 0, width: 1, height: 1)

    /// The same window in the mirror image (left and right swapped).
    public var mirrored: FeatureWindow { FeatureWindow(x: 1 - x - width, y: y, width: width, height: height) }

    /// The crop windows, in their wire and storage order (append, never reorder):
    /// 25 windows of 90% on a 5×5 grid of offsets (0 to 10% in steps of 2.5%, row by row), then
    /// 25 of 80% on a 5×5 grid (0 to 20% in steps of 5%). A crop that keeps 80–95% of each
    /// side, anywhere in the frame, lies within about 1.25% (2.5% for the 80% grid) of one.
    /// Pipeline 4 appends six bands (`bands`): 80% of one side, all of the other, at offsets 0,
    /// 10% and 20%: crops that take one side only (a 22% cut off the top, a 4:3 photo cut to
    /// 3:2 or 16:9) and the part of a frame a caption band leaves alone.
    public static let crops: [FeatureWindow] = grid(size: 0.9, step: 0.025) + grid(size: 0.8, step: 0.05) + bands
    /// How many windows each pipeline's workers send: rows keep what their worker sent.
    public static let cropsBeforePipeline4 = 50

    /// Indexes into `crops` of the bands: full height at 80% width (x = 0, 10%, 20%), then
    /// full width at 80% height (y = 0, 10%, 20%).
    public static let bandWindows: [Int] = Array(50..<56)
    /// Pipeline 6 hashes the frame straightened as well: after the crops, in this order, the
    /// largest box of the frame's own shape centred in it and turned by each of these angles
    /// (degrees; `TurnedWindow.straightened`). A photo straightened by a few degrees and cropped
    /// to hide its corners (the straighten tool's crop) lies off every axis-aligned window; on
    /// the three corpora's originals (bench/straightened-recall.py), such copies came within 8
    /// bits of a crop window's hash in 98% of cases under 1.5°, 64% at 4.5–6° and 33% at 6–8°,
    /// and within 8 bits of one of these in 96–100% at every angle up to 8°
    /// (docs/FEATURES.md, "Straightened frames"). `CandidateSort` packs a window's slot in 7
    /// bits, codes 0–60 for the frame and windows: 60 window hashes at the most (61–64 are the
    /// centre square, the turned frame, the mirror image and the content).
    public static let straightenings: [Double] = [-3, 3, -6, 6]
    /// How many window hashes a pipeline-6 worker sends: `crops`, then `straightenings`.
    public static let hashedCount = crops.count + straightenings.count
    /// Indexes, in a row's window hashes, of the straightened frames (after the crops).
    public static let straightenedWindows: [Int] = Array(crops.count..<hashedCount)

    /// The straightened frame a window hash at `index` (`straightenedWindows`) describes, in an
    /// image of `imageAspect` (width over height, in pixels).
    public static func straightened(_ index: Int, imageAspect: Double) -> TurnedWindow {
        TurnedWindow.straightened(degrees: straightenings[index - crops.count], imageAspect: imageAspect)
    }

    /// The bands that leave out the top or the bottom 20%: compared window to same window,
    /// for a caption band or banner across one end.
    public static let captionWindows: [Int] = [53, 55]

    private static let bands: [FeatureWindow] =
        [0, 0.1, 0.2].map { FeatureWindow(x: $0, y: 0, width: 0.8, height: 1) }
        + [0, 0.1, 0.2].map { FeatureWindow(x: 0, y: $0, width: 1, height: 0.8) }

    /// Indexes into `crops` of the nine 90% windows on the 0/5%/10% grid: compared window to
    /// same window, for overlays (a watermark in a corner or along an edge is outside some).
    public static let overlayWindows: [Int] = [0, 2, 4].flatMap { row in [0, 2, 4].map { row * 5 + $0 } }

    private static func grid(size: Double, step: Double) -> [FeatureWindow] {
        (0..<5).flatMap { row in
            (0..<5).map { column in
                FeatureWindow(x: Double(column) * step, y: Double(row) * step, width: size, height: size)
            }
        }
    }
}
