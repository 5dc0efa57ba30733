import Analysis

extension PairJudge {
    /// Whether two neighbours (`SimilarNeighbours`: close in capture time, or next to each other
    /// in their folder) that candidate search did not relate are other shots of one moment, in
    /// two steps: `neighbourFrames` screens on the whole frames, `similarShot` decides.
    ///
    /// The windows are lined up as candidate search would: the whole frames, and the
    /// `neighbourPairings` windows of either photo against the other's frame whose pHashes come
    /// closest (a pan or a zoom of up to 10%), the pairing whose evidence difference is least
    /// for its limit. Within `similarConfirmation` (0.15) they are similar when both say when
    /// they were taken, at different times within `similarWindow`; without capture times (or
    /// with one) when what differs is not most of the frame: a largest region of change
    /// (`LocalChange`) under `similarRegionLimit`. Such neighbours are other shots, or edits
    /// candidate search could not confirm (a straightened crop, a tiny copy with a logo): both
    /// are offered as shots to choose from, never as copies to remove.
    func similarShot(_ a: GroupingPhoto, _ b: GroupingPhoto) -> Bool {
        var none = LayoutCellCache(capacity: 0)
        guard let frames = neighbourFrames(a, b, rows: (0, 1), cache: &none) else { return false }
        return similarShot(a, b, frameDifference: frames, rows: (0, 1), cache: &none)
    }

    /// The whole frames' evidence difference when it is within `neighbourFrameScreen`, else nil
    /// (also for photos without layouts). Frames this far apart are other pictures, not a pan
    /// or zoom of a few percent: the hard set's burst frames differ by 0.02–0.18 as whole
    /// frames, 80% of the grouping benchmark's folder neighbours by more than 0.2.
    func neighbourFrames(_ a: GroupingPhoto, _ b: GroupingPhoto, rows: (Int32, Int32), cache: inout LayoutCellCache) -> Float? {
        let side = LayoutThumbnail.side
        guard a.thumbnail.count == side * side, b.thumbnail.count == side * side else { return nil }
        let difference = LayoutThumbnail.evidenceDifference(cache.cells(row: rows.0, slot: 0, of: a),
                                                            cache.cells(row: rows.1, slot: 0, of: b))
        return difference <= neighbourFrameScreen ? difference : nil
    }

    /// The decision on a pair `neighbourFrames` let through (`frameDifference`), each photo's
    /// ranked cells taken from `cache` when worked out before (`rows` name the photos there).
    /// The photos carry their window hashes (rows without them: the nine 90% windows of the
    /// 5% grid are compared instead).
    func similarShot(_ a: GroupingPhoto, _ b: GroupingPhoto, frameDifference: Float, rows: (Int32, Int32), cache: inout LayoutCellCache) -> Bool {
        var best = (pairing: Grouper.Pairing(slotA: 0, slotB: 0), difference: frameDifference, ratio: frameDifference / frameConfirmation)
        for pairing in Self.neighbourPairings(a, b) {
            let difference = LayoutThumbnail.evidenceDifference(cache.cells(row: rows.0, slot: pairing.slotA, of: a),
                                                                cache.cells(row: rows.1, slot: pairing.slotB, of: b))
            let ratio = difference / limit(pairing)
            if ratio < best.ratio { best = (pairing, difference, ratio) }
        }
        // Shots of one moment share their colours (a burst, a bracket's exposures); different
        // graphics alike in gray levels do not (`ChromaLayout`, as for candidates).
        guard best.difference <= similarConfirmation, !Self.coloursDisagree(a, b, best.pairing), !Self.plainColoursDiffer(a, b) else { return false }
        if a.isOtherShot(than: b), let ta = a.captureTime, let tb = b.captureTime { return abs(ta - tb) <= similarWindow }
        // The limit is a share of what the frames show: a plain background, alike in any two
        // graphics on one colour, is no evidence that they are one moment (different pictures of
        // a few shapes on one background changed under a quarter of the frame). Whether the
        // change stays under it is all that is asked: the first rotation that clears it ends
        // the looking.
        let shown = 1 - Double(max(cache.cells(row: rows.0, slot: 0, of: a).plainShare,
                                   cache.cells(row: rows.1, slot: 0, of: b).plainShare))
        let limit = similarRegionLimit * shown
        return Self.localChange(a, b, best.pairing, settledBelow: limit).largestRegion < limit
    }

    /// How many window pairings a neighbour pair compares: those whose pHashes come closest.
    static let neighbourPairingCount = 3

    /// The window pairings to compare for two neighbours: a window of one against the other's
    /// frame, the `neighbourPairingCount` closest by pHash over every window the rows have (as
    /// candidate search pairs them, without its radius); for rows without window hashes, the
    /// nine 90% windows of the 5% grid (`FeatureWindow.overlayWindows`) each way.
    static func neighbourPairings(_ a: GroupingPhoto, _ b: GroupingPhoto) -> [Grouper.Pairing] {
        let count = min(a.windowPHashes.count, b.windowPHashes.count, FeatureWindow.crops.count)
        guard count > 0 else {
            return FeatureWindow.overlayWindows.flatMap { [Grouper.Pairing(slotA: $0 + 1, slotB: 0), Grouper.Pairing(slotA: 0, slotB: $0 + 1)] }
        }
        // (distance, slot, which side's window) packed to sort as integers.
        var closest: [Int] = []
        closest.reserveCapacity(2 * count)
        for k in 0..<count {
            closest.append(PerceptualHash.distance(a.windowPHashes[k], b.pHash) << 16 | (k + 1) << 1)
            closest.append(PerceptualHash.distance(a.pHash, b.windowPHashes[k]) << 16 | (k + 1) << 1 | 1)
        }
        closest.sort()
        return closest.prefix(neighbourPairingCount).map { packed in
            let slot = (packed & 0xFFFF) >> 1
            return packed & 1 == 0 ? Grouper.Pairing(slotA: slot, slotB: 0) : Grouper.Pairing(slotA: 0, slotB: slot)
        }
    }

    /// The largest whole-frame difference for which `similarShot` lines up windows at all.
    var neighbourFrameScreen: Float { 0.2 }

    /// Whether both whole frames have a plain colour (`ChromaLayout.plainColour`: a fifth of the
    /// cells or more within 3 chroma units of one colour) and the two differ by more than twice
    /// that. A burst keeps its sky or its wall; two graphics on a red and a purple background,
    /// alike in gray levels and within the hue limit of a grade, are other pictures (of the
    /// end-to-end library's 22,000 flat-shape images, 24 such folder neighbours were still
    /// reported similar with the hue check alone).
    static func plainColoursDiffer(_ a: GroupingPhoto, _ b: GroupingPhoto) -> Bool {
        guard ChromaLayout.isLayout(a.chroma), ChromaLayout.isLayout(b.chroma),
              let colourA = ChromaLayout.plainColour(chromaCells(a, 0)), let colourB = ChromaLayout.plainColour(chromaCells(b, 0)) else { return false }
        return abs(colourA.cb - colourB.cb) + abs(colourA.cr - colourB.cr) > 2 * ChromaLayout.flatTolerance
    }
}
