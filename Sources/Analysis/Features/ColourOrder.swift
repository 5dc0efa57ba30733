/// Whether two aligned windows keep their colours in the same order, channel by channel: the
/// check that tells two different graphics of a few flat shapes apart when their gray layouts
/// and hues agree.
///
/// An edit maps colours through one curve per channel, the same everywhere in the picture:
/// brightness, contrast, gamma, a grade (red ×1.1, blue ×0.85), a re-encode or a resize. Such
/// a curve rises, so whatever was redder than something else stays redder, and so for green
/// and blue. Two different pictures that happen to share a gray layout do not: their
/// backgrounds and shapes were coloured independently, and a lime background next to a blue
/// shape in one is an orange background next to a red shape in the other.
///
/// The measure: over every pair of cells clearly apart (more than `clearDifference` levels)
/// in a channel in both windows, the share whose order the two windows disagree on; the largest
/// share of the three channels. Measured on the three corpora's real edits at the pairing the
/// judge uses and on the end-to-end flat-shape library (bench/RESULTS.md, "Colour order"):
/// tone edits and grades under 0.01, crops and overlays under `discordanceLimit`, the
/// flat-shape library's wrongly confirmed pairs mostly far above it.
///
/// Says nothing (nil) unless both windows are coloured (`ChromaLayout.minimumColouredShare`
/// of their cells at `ChromaLayout.saturationFloor` or more): a black-and-white copy orders
/// every channel as its luma, and a nearly gray photo has no colour order to keep.
public enum ColourOrder {
    /// Levels (of 255) two cells must differ by, in both windows, for their order to count.
    /// JPEG's chroma error on a flat area is a few levels.
    public static let clearDifference: Float = 6
    /// Fewer clearly ordered pairs than this in every channel: nothing to say.
    public static let minimumPairs = 20
    /// The largest share of disagreeing orders an edit shows (`discordance`).
    public static let discordanceLimit: Float = 0.3

    /// A cell's colour: red, green and blue (0–255, JFIF's conversion) from its luma and its
    /// (Cb − 128, Cr − 128), which it keeps.
    public struct Colour: Sendable, Equatable {
        public var red: Float
        public var green: Float
        public var blue: Float
        public var cb: Float
        public var cr: Float

        public init(luma: Float, cb: Float, cr: Float) {
            red = luma + 1.402 * cr
            green = luma - 0.344136 * cb - 0.714136 * cr
            blue = luma + 1.772 * cb
            self.cb = cb
            self.cr = cr
        }

        var saturation: Float { (cb * cb + cr * cr).squareRoot() }
    }

    /// The colours of a window's cells from its luma and chroma cells (the same grid).
    public static func colours(luma: [Float], chroma: [(cb: Float, cr: Float)]) -> [Colour] {
        precondition(luma.count == chroma.count)
        return zip(luma, chroma).map { Colour(luma: $0, cb: $1.cb, cr: $1.cr) }
    }

    /// How far the two windows' colour orders disagree: the share of clearly ordered cell
    /// pairs whose order differs, the largest over red, green and blue. Per-channel curves
    /// (tone, grades, white balance) keep those orders. A saturation change mixes the channels
    /// and can reorder them, so the orders are also compared with `a`'s colours moved towards
    /// or away from gray by the pair's saturation ratio (the median over cells coloured in
    /// both), and the smaller share counts: an edit is a saturation change and per-channel
    /// curves; two independently coloured pictures are neither. nil when either window is
    /// nearly gray or no channel has `minimumPairs` clearly ordered pairs.
    public static func discordance(_ a: [Colour], _ b: [Colour]) -> Float? {
        precondition(a.count == b.count)
        guard bothColoured(a, b), let asIs = largestDisagreement(a, b) else { return nil }
        return min(asIs, largestDisagreement(resaturated(a, towards: b), b) ?? asIs)
    }

    /// Whether the windows' colour orders say they are different pictures (`discordance` over
    /// `discordanceLimit`). Asked of every pair about to be called near, so it stops as soon
    /// as the answer is known: the orders as they are within the limit (most edits) need no
    /// resaturated comparison, and one channel past it is enough either way.
    public static func disagree(_ a: [Colour], _ b: [Colour]) -> Bool {
        precondition(a.count == b.count)
        guard bothColoured(a, b), exceedsLimit(a, b) == true else { return false }
        // The resaturated orders decide only if they too have channels to compare.
        return exceedsLimit(resaturated(a, towards: b), b) ?? true
    }

    private static func bothColoured(_ a: [Colour], _ b: [Colour]) -> Bool {
        func coloured(_ cells: [Colour]) -> Bool {
            Float(cells.filter { $0.saturation >= ChromaLayout.saturationFloor }.count) >= ChromaLayout.minimumColouredShare * Float(cells.count)
        }
        return !a.isEmpty && coloured(a) && coloured(b)
    }

    /// `a`'s colours moved towards or away from gray by the pair's saturation ratio (the median
    /// over cells coloured in both).
    private static func resaturated(_ a: [Colour], towards b: [Colour]) -> [Colour] {
        let ratios = zip(a, b).filter { $0.saturation >= ChromaLayout.saturationFloor && $1.saturation >= ChromaLayout.saturationFloor }
            .map { $1.saturation / $0.saturation }.sorted()
        let ratio = ratios.isEmpty ? 1 : ratios[ratios.count / 2]
        return a.map { colour in
            let luma = 0.299 * colour.red + 0.587 * colour.green + 0.114 * colour.blue
            return Colour(luma: luma, cb: colour.cb * ratio, cr: colour.cr * ratio)
        }
    }

    /// Red, green and blue, by number.
    private static let channels = 0..<3

    private static func value(_ colour: Colour, _ channel: Int) -> Float {
        channel == 0 ? colour.red : channel == 1 ? colour.green : colour.blue
    }

    /// The share of disagreeing orders of `channel`'s clearly ordered pairs, nil under
    /// `minimumPairs` of them.
    private static func disagreement(_ a: [Colour], _ b: [Colour], channel: Int) -> Float? {
        // Read out once, for a tight pair loop.
        let valuesA = a.map { value($0, channel) }, valuesB = b.map { value($0, channel) }
        var clear = 0, disagreeing = 0
        for i in 0..<a.count {
            for j in (i + 1)..<a.count {
                let stepA = valuesA[i] - valuesA[j], stepB = valuesB[i] - valuesB[j]
                guard abs(stepA) > clearDifference, abs(stepB) > clearDifference else { continue }
                clear += 1
                if (stepA > 0) != (stepB > 0) { disagreeing += 1 }
            }
        }
        return clear >= minimumPairs ? Float(disagreeing) / Float(clear) : nil
    }

    /// The largest share of disagreeing orders over the channels, nil when none has `minimumPairs`.
    private static func largestDisagreement(_ a: [Colour], _ b: [Colour]) -> Float? {
        channels.compactMap { disagreement(a, b, channel: $0) }.max()
    }

    /// Whether `largestDisagreement` is over `discordanceLimit` (nil when it is nil), from the
    /// first channel past it.
    private static func exceedsLimit(_ a: [Colour], _ b: [Colour]) -> Bool? {
        var compared = false
        for channel in channels {
            guard let share = disagreement(a, b, channel: channel) else { continue }
            if share > discordanceLimit { return true }
            compared = true
        }
        return compared ? false : nil
    }
}
