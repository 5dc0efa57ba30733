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

    /// The crop windows, in their wire and storage order (append, never reorder):
    /// 25 windows of 90% on a 5×5 grid of offsets (0 to 10% in steps of 2.5%, row by row), then
    /// 25 of 80% on a 5×5 grid (0 to 20% in steps of 5%). A crop that keeps 80–95% of each
    /// side, anywhere in the frame, lies within about 1.25% (2.5% for the 80% grid) of one.
    public static let crops: [FeatureWindow] = grid(size: 0.9, step: 0.025) + grid(size: 0.8, step: 0.05)

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
