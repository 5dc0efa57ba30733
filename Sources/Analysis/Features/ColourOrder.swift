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
        func coloured(_ cells: [Colour]) -> Bool {
            Float(cells.filter { $0.saturation >= ChromaLayout.saturationFloor }.count) >= ChromaLayout.minimumColouredShare * Float(cells.count)
        }
        guard !a.isEmpty, coloured(a), coloured(b) else { return nil }
        let ratios = zip(a, b).filter { $0.saturation >= ChromaLayout.saturationFloor && $1.saturation >= ChromaLayout.saturationFloor }
            .map { $1.saturation / $0.saturation }.sorted()
        let ratio = ratios.isEmpty ? 1 : ratios[ratios.count / 2]
        let resaturated = a.map { colour in
            let luma = 0.299 * colour.red + 0.587 * colour.green + 0.114 * colour.blue
            return Colour(luma: luma, cb: colour.cb * ratio, cr: colour.cr * ratio)
        }
        let channels: [KeyPath<Colour, Float>] = [\.red, \.green, \.blue]
        guard let asIs = largestDisagreement(a, b, channels: channels) else { return nil }
        return min(asIs, largestDisagreement(resaturated, b, channels: channels) ?? asIs)
    }

    /// The largest share of disagreeing orders over `channels`, nil when none has `minimumPairs`.
    private static func largestDisagreement(_ a: [Colour], _ b: [Colour], channels: [KeyPath<Colour, Float>]) -> Float? {
        var largest: Float?
        let count = a.count
        for channel in channels {
            // Read out once: a key path read in the pair loop costs more than the comparison.
            let valuesA = a.map { $0[keyPath: channel] }, valuesB = b.map { $0[keyPath: channel] }
            var clear = 0, disagreeing = 0
            for i in 0..<count {
                for j in (i + 1)..<count {
                    let stepA = valuesA[i] - valuesA[j], stepB = valuesB[i] - valuesB[j]
                    guard abs(stepA) > clearDifference, abs(stepB) > clearDifference else { continue }
                    clear += 1
                    if (stepA > 0) != (stepB > 0) { disagreeing += 1 }
                }
            }
            guard clear >= minimumPairs else { continue }
            largest = max(largest ?? 0, Float(disagreeing) / Float(clear))
        }
        return largest
    }

    /// Whether the windows' colour orders say they are different pictures (`discordance` over
    /// `discordanceLimit`).
    public static func disagree(_ a: [Colour], _ b: [Colour]) -> Bool {
        discordance(a, b).map { $0 > discordanceLimit } ?? false
    }
}
