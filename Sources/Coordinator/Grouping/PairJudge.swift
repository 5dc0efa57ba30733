import Analysis

/// What two photos are to each other, once a candidate pairing is looked at.
enum PairRelation: Sendable, Equatable {
    /// The same picture, edited (re-encoded, resized, toned, cropped, overlaid).
    case near
    /// Another shot of the same moment: a burst or bracket frame, a subject that moved.
    case similar
    /// Confirmed different although the layouts agree (a colour variant of one design): the
    /// two must never share a group, also not through a third photo both look like.
    case distinct

    /// Which of two relations a pair's pairings found wins: near, then distinct, then similar.
    var strength: Int {
        switch self {
        case .near: 3
        case .distinct: 2
        case .similar: 1
        }
    }
}

/// Decides a candidate pairing on the photos' layout thumbnails and capture times
/// (docs/FEATURES.md, "Near or similar").
///
/// A pairing whose aligned cells agree (`LayoutThumbnail.difference` within the limit) is the
/// same picture: a near-duplicate. Unless both photos say when they were taken, at different
/// times: an edit keeps the original's DateTimeOriginal (and SubSecTimeOriginal), another shot
/// has its own. Then they are different shots whatever they look like: similar if within
/// `similarWindow` of each other and close under the looser `similarConfirmation`, else
/// nothing. Telling shots without capture times apart by what differs (a moved subject versus
/// a crop) was measured on the thumbnails and does not separate yet (docs/FEATURES.md).
struct PairJudge: Sendable {
    /// The largest `LayoutThumbnail.difference` that confirms whole frames. Looser than for
    /// windows: frames that also agree by pHash have the same geometry, and a tone edit that
    /// clips highlights moves cell ranks a little.
    var frameConfirmation: Float = 0.09
    /// The largest `LayoutThumbnail.difference` that confirms a window pairing.
    var windowConfirmation: Float = 0.06
    /// Shots of one moment (different capture times): the largest difference that still
    /// counts them as similar.
    var similarConfirmation: Float = 0.15
    /// How far apart (seconds) two capture times may be for the shots to be of one moment.
    var similarWindow: Double = 3
    /// Old rows only: the dHash distance that must also hold.
    var dHashThreshold: Int = 16

    func relation(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> PairRelation? {
        var none = LayoutCellCache(capacity: 0)
        return relation(a, b, pairing, rows: (0, 1), cache: &none)
    }

    /// The same, taking each photo's cells for its slot from `cache` when they were worked
    /// out for an earlier pairing (`rows` name the photos there).
    func relation(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing, rows: (Int32, Int32),
                  cache: inout LayoutCellCache) -> PairRelation? {
        let side = LayoutThumbnail.side
        guard a.thumbnail.count == side * side, b.thumbnail.count == side * side else {
            // Rows from before pipeline 3: the whole frames only, pHash and dHash.
            let holds = pairing == Grouper.Pairing(slotA: 0, slotB: 0) && PerceptualHash.distance(a.dHash, b.dHash) <= dHashThreshold
            return holds ? .near : nil
        }
        let cellsA = cache.cells(row: rows.0, slot: pairing.slotA) { Self.cells(a, pairing.slotA) }
        let cellsB = cache.cells(row: rows.1, slot: pairing.slotB) { Self.cells(b, pairing.slotB) }
        let difference = LayoutThumbnail.evidenceDifference(cellsA, cellsB)
        if let ta = a.captureTime, let tb = b.captureTime, ta != tb {
            return abs(ta - tb) <= similarWindow && difference <= similarConfirmation ? .similar : nil
        }
        let wholeFrames: Set<Int> = [0, Int(Candidate.mirrorSlot)]
        let limit = wholeFrames.contains(pairing.slotA) && wholeFrames.contains(pairing.slotB) ? frameConfirmation : windowConfirmation
        guard difference <= limit else { return nil }
        // The same layout in other colours: a colour variant of one design, not a copy.
        return Self.coloursDisagree(a, b, pairing) ? .distinct : .near
    }

    /// Whether both photos have colour and their hues differ past `ChromaLayout.hueLimit` on
    /// the windows the pairing matched.
    static func coloursDisagree(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> Bool {
        let bytes = 2 * ChromaLayout.side * ChromaLayout.side
        guard a.chroma.count == bytes, b.chroma.count == bytes else { return false }
        return ChromaLayout.disagree(chromaCells(a, pairing.slotA), chromaCells(b, pairing.slotB))
    }

    static func chromaCells(_ photo: GroupingPhoto, _ slot: Int) -> [(cb: Float, cr: Float)] {
        switch slot {
        case 0: ChromaLayout.cells(of: photo.chroma, in: .full)
        case Int(Candidate.mirrorSlot): ChromaLayout.cells(of: photo.chroma, in: .full, mirrored: true)
        case Int(Candidate.contentSlot): ChromaLayout.cells(of: photo.chroma, in: photo.contentBox ?? .full)
        default: ChromaLayout.cells(of: photo.chroma, in: FeatureWindow.crops[slot - 1])
        }
    }

    static func cells(_ photo: GroupingPhoto, _ slot: Int) -> [Float] {
        switch slot {
        case 0: LayoutThumbnail.cells(of: photo.thumbnail, in: .full)
        case Int(Candidate.mirrorSlot): LayoutThumbnail.cells(of: LayoutThumbnail.mirrored(photo.thumbnail), in: .full)
        case Int(Candidate.contentSlot): LayoutThumbnail.cells(of: photo.thumbnail, in: photo.contentBox ?? .full)
        default: LayoutThumbnail.cells(of: photo.thumbnail, in: FeatureWindow.crops[slot - 1])
        }
    }
}

/// The ranked layout cells of the last few (photo, slot)s judged. A thread judges candidates
/// sorted by pair, so one photo meets its partners one after another, through the same few
/// slots: its cells are worked out once for all of them, not once a pairing.
struct LayoutCellCache {
    private var keys: [UInt64]
    private var values: [[Float]]
    private var next = 0
    private(set) var hits = 0
    private(set) var misses = 0

    /// `capacity` 0 keeps nothing.
    init(capacity: Int = 16) {
        keys = [UInt64](repeating: .max, count: capacity)
        values = [[Float]](repeating: [], count: capacity)
    }

    mutating func cells(row: Int32, slot: Int, make: () -> [Float]) -> [Float] {
        let key = UInt64(UInt32(bitPattern: row)) << 8 | UInt64(slot & 0xFF)
        for index in keys.indices where keys[index] == key {
            hits += 1
            return values[index]
        }
        misses += 1
        let made = make()
        guard !keys.isEmpty else { return made }
        keys[next] = key
        values[next] = made
        next = (next + 1) % keys.count
        return made
    }
}
