/// How much of a JPEG's file its markers take up to its image data: what a head-only read must
/// hold for the EXIF block (an APP1 segment) and the image header (the frame header, and the
/// tables up to the start-of-scan header, which the decoder reads before it says the size).
/// Cameras put them in the first tens of KB; a file with large application segments before
/// them (maker data, another vendor's preview) needs a longer head.
public enum JPEGHead {
    public enum Extent: Equatable, Sendable {
        /// The start-of-scan header ends at this offset: a head this long holds every marker
        /// segment before the image data.
        case headerEnds(at: Int)
        /// The head ends before that; at least this many bytes show more of it.
        case needsAtLeast(Int)
    }

    /// The extent of `head`'s markers, nil when it is not a JPEG's marker sequence (no SOI, a
    /// byte where a marker should be, image data or the end before any frame header).
    public static func extent(_ head: [UInt8]) -> Extent? {
        guard head.count >= 2, head[0] == 0xFF, head[1] == 0xD8 else { return nil }
        var position = 2, frameSeen = false
        while true {
            guard position + 4 <= head.count else { return .needsAtLeast(position + 4) }
            guard head[position] == 0xFF else { return nil }
            let marker = head[position + 1]
            if marker == 0xFF { position += 1; continue }  // fill bytes before a marker
            let end = position + 2 + (Int(head[position + 2]) << 8 | Int(head[position + 3]))
            switch marker {
            case 0xDA:
                guard frameSeen else { return nil }  // image data before any frame header
                return end <= head.count ? .headerEnds(at: end) : .needsAtLeast(end)
            case 0xD9:
                return nil
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                frameSeen = true
                position = end
            default:
                position = end
            }
        }
    }
}
