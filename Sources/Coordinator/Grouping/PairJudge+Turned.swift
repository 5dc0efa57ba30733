import Analysis

/// Turned copies (rules 43): a copy whose pixels were turned a quarter turn, saved with no EXIF
/// flag to turn it back (a rotate tool's export, a scan fed in sideways).
///
/// Candidate search pairs a photo's turned frame (`TurnedFrame.pHash`, `Candidate.turnedSlot`)
/// with another's frame. The judge then turns that photo's planes (thumbnail, detail layout,
/// chroma layout) and its pixel size, and judges the two as two whole frames are judged, by
/// every check (change of the scene, colours, zoom, registration of a crop of one side). A pair
/// that other pairings also confirm is judged on those first: the turned pairing only speaks
/// when they leave it without a verdict, or, where they call it similar, to call it near (a
/// symmetric picture's mirror image can look like another shot of its turned copy: skimage's
/// rocket). docs/FEATURES.md, "Turned copies", has the numbers.
extension PairJudge {
    /// Whether the pairing compares one photo's turned frame with the other's frame.
    static func throughTurned(_ pairing: Grouper.Pairing) -> Bool {
        pairing.slotA == Int(Candidate.turnedSlot) || pairing.slotB == Int(Candidate.turnedSlot)
    }

    /// The verdict of the first turned pairing that has one, each judged as two whole frames
    /// with the turned side's planes turned. Each is worked out afresh (no cache: the cells of
    /// a turned plane are no slot of the photo the cache keeps), which turned pairings are few
    /// enough to afford.
    ///
    /// Frames called distinct or similar are judged again on the same windows of both as well
    /// (`sameWindows`): a fixed pair is distinct only when no confirming pairing's colours
    /// agree, and similar only when the pairing that lines the two up best shows a change, and
    /// search hands the judge those windows whenever the two photos are copies of each other.
    /// On frames alone, a sepia copy and a turned copy of one photo were distinct (hues 160°
    /// apart) where the sepia copy and the photo were near through a corner window, and an
    /// equalised copy similar to a turned one (bench/RESULTS.md, "Turned copies"). Not two plain
    /// graphics: their verdict is their shapes' colours where they line up best (rules 17), and
    /// windows search never paired would let a look-alike through (a blue box on green and a
    /// teal one on yellow, turned, in the end-to-end library).
    func turnedRelation(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing]) -> PairRelation? {
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        for pairing in pairings where Self.throughTurned(pairing) {
            let (first, second) = pairing.slotA == Int(Candidate.turnedSlot) ? (a.turned, b) : (a, b.turned)
            var own = LayoutCellCache(capacity: 0)
            var best: BestPairing?
            var verdict = relation(first, second, pairings: [frames], rows: (0, 1), cache: &own, best: &best)
            if verdict == .distinct || verdict == .similar, !(Self.isPlainGraphic(first) && Self.isPlainGraphic(second)) {
                verdict = relation(first, second, pairings: [frames] + Self.sameWindows, rows: (0, 1), cache: &own, best: &best)
            }
            if let verdict { return verdict }
        }
        return nil
    }

    /// The overlay and caption windows of both photos, each against the same window of the other.
    static let sameWindows: [Grouper.Pairing] = (FeatureWindow.overlayWindows + FeatureWindow.captionWindows).map {
        Grouper.Pairing(slotA: $0 + 1, slotB: $0 + 1)
    }
}

extension GroupingPhoto {
    /// The photo turned a quarter turn clockwise as the judge reads it: its planes turned, its
    /// width and height swapped, and no hash but its frame's (which is the turned frame's).
    var turned: GroupingPhoto {
        var photo = self
        photo.pHash = turnedPHash ?? pHash
        photo.windowPHashes = []
        photo.mirrorPHash = nil
        photo.turnedPHash = nil
        photo.squarePHash = nil
        photo.contentBox = nil
        photo.contentPHash = nil
        if thumbnail.count == LayoutThumbnail.side * LayoutThumbnail.side { photo.thumbnail = TurnedFrame.turned(thumbnail, side: LayoutThumbnail.side) }
        if hasDetail { photo.detail = TurnedFrame.turned(detail, side: DetailLayout.side) }
        photo.chroma = TurnedFrame.turnedChroma(chroma)
        (photo.width, photo.height) = (height, width)
        return photo
    }
}
