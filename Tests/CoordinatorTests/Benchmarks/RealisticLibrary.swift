@testable import Coordinator
import Analysis
import Foundation

/// Feature rows for grouping benchmarks that look like real ones, drawn from the features cull
/// stored for real photos (`bench/feature-model.py`: the development, holdout and hard corpora).
///
/// Uniform random hashes flatter every index: real pHashes have biased bits, photos cluster
/// around look-alikes, and a copy's windows relate to its original's as the edit made them.
/// So every row is a real photo's features seen through a disguise that keeps those relations:
///
/// - A **distinct photo** takes a real original `o`, an XOR mask `M` (each bit flipped with a
///   probability between 0.15 and 0.35, drawn per photo) applied to its whole-frame hash *and*
///   to every window hash alike, and a random non-monotone tone map `L` applied to its layout
///   thumbnail. XOR with one mask keeps every Hamming distance between any two of the photo's
///   slots; a pointwise tone map keeps where things are (so a window of the thumbnail is still
///   the crop's thumbnail) while changing the ranks that confirmation compares, as a different
///   photo would. Photos made from the same original stay look-alikes: their hashes are about
///   24 bits apart, with a tail reaching below the near threshold, as real look-alikes do.
/// - A **planted copy** takes a real (original `o`, edited copy `e`) pair of the corpora and a
///   distinct photo made from that `o`, and applies the photo's `M` and `L` to `e`'s features:
///   the copy is exactly as far from the photo, slot by slot, as the real edit was from its
///   original (crops, overlays, tone edits, re-encodes, formats).
///
/// The base photos are few (about a hundred originals), so the rows cluster more tightly than a
/// real library's: if anything the benchmark is harder than real data, not easier.
struct RealisticLibrary {
    var frames: [UInt64] = []
    /// `windowCount` window hashes per row, row after row.
    var windows: [UInt64] = []
    /// `thumbnailBytes` gray levels per row, row after row.
    var thumbnails: [UInt8] = []
    /// For planted copies, the row they are a copy of; -1 for distinct photos.
    var copyOf: [Int32] = []
    /// For planted copies, the edit (transform name) they carry.
    var edit: [String?] = []

    static let windowCount = FeatureWindow.crops.count
    static let thumbnailBytes = LayoutThumbnail.side * LayoutThumbnail.side

    var count: Int { frames.count }

    func window(_ row: Int, _ k: Int) -> UInt64 { windows[row * Self.windowCount + k] }

    func photo(_ row: Int) -> GroupingPhoto {
        let w = row * Self.windowCount, t = row * Self.thumbnailBytes
        return GroupingPhoto(id: Int64(row), path: "/lib/\(row).jpg", sha256: Array(String(row).utf8), pHash: frames[row], dHash: 0,
                             windowPHashes: Array(windows[w..<w + Self.windowCount]),
                             thumbnail: Array(thumbnails[t..<t + Self.thumbnailBytes]),
                             width: 4000, height: 3000, fileSize: 4_000_000, sharpness: 1)
    }

    /// `count` rows, `copyShare` of them planted copies (one to three per photo that has any).
    static func generate(count: Int, model: FeatureModel, copyShare: Double = 0.1, seed: UInt64 = 1) -> RealisticLibrary {
        var random = SplitMix64(seed: seed ^ UInt64(count))
        var library = RealisticLibrary()
        library.frames.reserveCapacity(count)
        library.windows.reserveCapacity(count * windowCount)
        library.thumbnails.reserveCapacity(count * thumbnailBytes)
        while library.count < count {
            let base = model.originals[Int(random.next() % UInt64(model.originals.count))]
            let mask = Self.mask(flipProbability: 0.15 + 0.2 * Double(random.next() % 1000) / 1000, &random)
            let tone = ToneMap(&random)
            let photoRow = library.count
            library.append(base, mask: mask, tone: tone, copyOf: -1, edit: nil)
            let families = model.families[base.group] ?? []
            // A photo with copies gets two on average: copies / rows = 2q / (1 + 2q) = copyShare.
            let withCopies = copyShare / (2 * (1 - copyShare))
            guard !families.isEmpty, Double(random.next() % 10_000) / 10_000 < withCopies else { continue }
            for _ in 0..<(1 + Int(random.next() % 3)) where library.count < count {
                let copy = families[Int(random.next() % UInt64(families.count))]
                library.append(copy, mask: mask, tone: tone, copyOf: Int32(photoRow), edit: copy.transform)
            }
        }
        return library
    }

    private mutating func append(_ row: FeatureModel.Row, mask: UInt64, tone: ToneMap, copyOf original: Int32, edit transform: String?) {
        frames.append(row.pHash ^ mask)
        windows.append(contentsOf: row.windows.map { $0 ^ mask })
        thumbnails.append(contentsOf: row.thumbnail.map { tone.map[Int($0)] })
        copyOf.append(original)
        edit.append(transform)
    }

    static func mask(flipProbability p: Double, _ random: inout SplitMix64) -> UInt64 {
        var mask: UInt64 = 0
        let threshold = UInt64(p * 1_000_000)
        for bit in 0..<64 where random.next() % 1_000_000 < threshold { mask |= 1 << UInt64(bit) }
        return mask
    }
}

/// A random, non-monotone, piecewise-linear map of gray levels (4 to 7 segments up and down):
/// applied alike to a photo and its copies, it makes a different-looking photo without moving
/// anything in the frame.
struct ToneMap {
    let map: [UInt8]

    init(_ random: inout SplitMix64) {
        let segments = 4 + Int(random.next() % 4)
        let knots = (0...segments).map { _ in Double(random.next() % 256) }
        map = (0..<256).map { level in
            let x = Double(level) / 255 * Double(segments)
            let i = min(Int(x), segments - 1), f = x - Double(i)
            return UInt8((knots[i] * (1 - f) + knots[i + 1] * f).rounded())
        }
    }
}

/// The exported features of real photos (bench/feature-model.py).
struct FeatureModel: Decodable {
    struct Row: Decodable {
        var corpus: String
        var group: String
        var transform: String
        var pHash: UInt64
        var windows: [UInt64]
        var thumbnail: [UInt8]

        enum CodingKeys: String, CodingKey { case corpus, group, transform, phash, windows, thumbnail }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            corpus = try c.decode(String.self, forKey: .corpus)
            group = try c.decode(String.self, forKey: .group)
            transform = try c.decode(String.self, forKey: .transform)
            pHash = try c.decode(UInt64.self, forKey: .phash)
            windows = try c.decode([UInt64].self, forKey: .windows)
            thumbnail = [UInt8](Data(base64Encoded: try c.decode(String.self, forKey: .thumbnail)) ?? Data())
        }
    }

    var photos: [Row]
    /// Real originals (transform "original"), grouped by their corpus-qualified group.
    var originals: [Row] = []
    /// Each original's edited copies (same truth group), by corpus-qualified group.
    var families: [String: [Row]] = [:]

    enum CodingKeys: String, CodingKey { case photos }

    init(from decoder: any Decoder) throws {
        photos = try decoder.container(keyedBy: CodingKeys.self).decode([Row].self, forKey: .photos)
            .filter { $0.windows.count == RealisticLibrary.windowCount && $0.thumbnail.count == RealisticLibrary.thumbnailBytes }
            .map { var row = $0; row.group = "\(row.corpus)/\(row.group)"; return row }
        originals = photos.filter { $0.transform == "original" }
        let withOriginal = Set(originals.map(\.group))
        // Negatives (similar shots, look-alikes) are their own truth groups with no original:
        // they are never planted as copies.
        for row in photos where row.transform != "original" && withOriginal.contains(row.group) {
            families[row.group, default: []].append(row)
        }
    }

    static func load(_ path: String) throws -> FeatureModel {
        try JSONDecoder().decode(FeatureModel.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
