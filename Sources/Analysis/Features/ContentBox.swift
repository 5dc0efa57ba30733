/// The part of a frame inside plain borders: what a bordered copy (a white mat, a letterbox, a
/// frame added for a social network) has in common with its original.
///
/// A border adds plain rows or columns along the edges, so the bordered copy's whole-frame hash
/// differs from the original's by 20 bits and more, and none of its windows match either (they
/// all keep some border). Hashing the content inside the borders gives back the original's
/// whole-frame hash.
///
/// A row (or column) along an edge is border when nearly all its pixels lie within `tolerance`
/// of the level of the outermost row, and so is every row between it and the edge. A side's
/// border counts only if it is at least `minimumBorder` of that side (a one-pixel line left by
/// a scanner or a resize is no border), and the content must keep `minimumContent` of each side.
/// A plain background is not told from a border (a studio shot on white): that only adds a
/// candidate, which the layout comparison then judges on the content itself.
public enum ContentBox {
    /// Gray levels a border pixel may differ from the border's level (JPEG noise along a
    /// border's edge, a slightly uneven scanned mat).
    static let tolerance = 10
    /// The share of a row's pixels that must be within tolerance (a signature or a thin caption
    /// line on a mat does not end it).
    static let uniformShare = 0.97
    static let minimumBorder = 0.02
    static let minimumContent = 0.5

    /// The content inside the borders, in fractions of the frame, or nil when there are none.
    public static func detect(_ image: GrayImage) -> FeatureWindow? {
        let width = image.width, height = image.height
        guard width >= 16, height >= 16 else { return nil }
        let pixels = image.pixels
        let top = border(lines: height, length: width) { line, i in pixels[line * width + i] }
        let bottom = border(lines: height, length: width) { line, i in pixels[(height - 1 - line) * width + i] }
        let left = border(lines: width, length: height) { line, i in pixels[i * width + line] }
        let right = border(lines: width, length: height) { line, i in pixels[i * width + width - 1 - line] }
        func kept(_ lines: Int, _ side: Int) -> Int { Double(lines) >= minimumBorder * Double(side) ? lines : 0 }
        let (t, b, l, r) = (kept(top, height), kept(bottom, height), kept(left, width), kept(right, width))
        guard t + b + l + r > 0,
              Double(height - t - b) >= minimumContent * Double(height),
              Double(width - l - r) >= minimumContent * Double(width) else { return nil }
        return FeatureWindow(x: Double(l) / Double(width), y: Double(t) / Double(height),
                             width: Double(width - l - r) / Double(width), height: Double(height - t - b) / Double(height))
    }

    /// How many lines from an edge are border: `pixel(line, i)` reads pixel i of the line'th
    /// line from that edge. At most half the lines (the content keeps at least half anyway).
    private static func border(lines: Int, length: Int, pixel: (Int, Int) -> UInt8) -> Int {
        let level = median((0..<length).map { pixel(0, $0) })
        let needed = Int((uniformShare * Double(length)).rounded(.up))
        var line = 0
        while line < lines / 2 {
            var close = 0
            for i in 0..<length where abs(Int(pixel(line, i)) - level) <= tolerance { close += 1 }
            guard close >= needed else { break }
            line += 1
        }
        return line
    }

    private static func median(_ values: [UInt8]) -> Int {
        var counts = [Int](repeating: 0, count: 256)
        for value in values { counts[Int(value)] += 1 }
        var seen = 0
        for level in 0..<256 {
            seen += counts[level]
            if 2 * seen >= values.count { return level }
        }
        return 255
    }
}
