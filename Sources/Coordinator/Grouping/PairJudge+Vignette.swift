import Analysis

/// Vignettes (rules 42): a copy darkened (or lightened) towards its corners, a global edit that
/// reads as a change of the scene all round the frame. docs/FEATURES.md, "Vignettes".
extension PairJudge {
    /// Whole frames are corrected for a vignette when their difference is within this many
    /// times the frame limit (0.09): a vignette moves the corners' ranks, and a strong one
    /// (corners 45% darker) takes the development and holdout originals' whole frames to
    /// 0.02–0.27. At twice the limit 65 of their 73 strong vignettes were found with their
    /// original, at three times 71 (before the rank gate; 68 with it).
    static let vignetteReach: Float = 3.0

    /// The least `radialRankShift` of frames that are fitted for a vignette. On the 73
    /// development and holdout originals, their strong and mild vignettes move 141 of 144 pairs
    /// of frames within `vignetteReach` by 1.5 or more (2.3 at the tenth percentile), and 167 of
    /// 1,107 pairs of two different originals within it: the fit (`RadialGain.vignette`), which
    /// costs more, is asked of a seventh of the pairs alike (bench/RESULTS.md, "Vignettes").
    static let leastRadialShift: Float = 1.5

    /// How far the ranks of the frames' corners (the cells outside the circle that touches the
    /// frame's sides) moved past those of its middle (the cells within half its radius), either
    /// way, over how far the ranks moved on average: a vignette moves the corners' ranks one way
    /// and the middle's the other, and little else, while two photos alike differ all over.
    static func radialRankShift(_ a: [Float], _ b: [Float]) -> Float {
        let side = LayoutThumbnail.comparisonSide
        guard a.count == side * side, b.count == a.count else { return 0 }
        var corners: Float = 0, middle: Float = 0, moved: Float = 0, cornerCells = 0, middleCells = 0
        for index in a.indices {
            // 1 in the corners: the circle touching the sides at a half, half its radius at an eighth.
            let squared = RadialGain.squaredRadius(index, side: side), change = b[index] - a[index]
            moved += abs(change)
            if squared >= 0.5 {
                corners += change
                cornerCells += 1
            } else if squared <= 0.125 {
                middle += change
                middleCells += 1
            }
        }
        guard moved > 0 else { return 0 }
        return abs(corners / Float(cornerCells) - middle / Float(middleCells)) / (moved / Float(a.count))
    }

    /// The whole frames' ranked cells of `a` and `b` when search paired their whole frames, both
    /// keep a thumbnail and they do not say they are different shots: where the corrections for
    /// an edit of the whole frame (a vignette, an overlay band, rules 46) start; nil otherwise.
    static func pairedFrameCells(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], rows: (Int32, Int32),
                                 cache: inout LayoutCellCache) -> (LayoutThumbnail.RankedCells, LayoutThumbnail.RankedCells)? {
        let side = LayoutThumbnail.side
        guard pairings.contains(Grouper.Pairing(slotA: 0, slotB: 0)), a.thumbnail.count == side * side,
              b.thumbnail.count == side * side, !a.isOtherShot(than: b) else { return nil }
        return (cache.cells(row: rows.0, slot: 0, of: a), cache.cells(row: rows.1, slot: 0, of: b))
    }

    /// Whether the whole frames of `a` and `b`, a pair the pairings left without a verdict or
    /// called similar, are near once a vignette between them is divided out of `b`, or out of
    /// `a` where none fits `b` (`RadialGain`, rules 49): judged as whole frames are, by every
    /// check, at the frame limit. Only when search paired the whole frames, the two do not say
    /// they are different shots, their frames came within `vignetteReach` of the limit with
    /// their corners' ranks moved against their middle's (`radialRankShift`), and a gain a
    /// vignette makes takes away most of their mismatch (`RadialGain.vignette`).
    func devignettedNear(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], rows: (Int32, Int32),
                         cache: inout LayoutCellCache) -> Bool {
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        guard let (cellsA, cellsB) = Self.pairedFrameCells(a, b, pairings: pairings, rows: rows, cache: &cache),
              LayoutThumbnail.evidenceDifference(cellsA, cellsB) <= frameConfirmation * Self.vignetteReach,
              Self.radialRankShift(cellsA.ranks, cellsB.ranks) >= Self.leastRadialShift else { return false }
        // Divided out of `b`, or else out of `a`: the fit that lightens a vignetted copy's corners
        // back can fail where the one darkening its original's holds (the 45% vignette of a dark
        // wood grain: its corners' levels crushed), and the verdict must not hang on which of
        // the two search handed first.
        let corrected: (GroupingPhoto, GroupingPhoto)
        if let devignetted = Self.devignetted(b, against: a) {
            corrected = (a, devignetted)
        } else if let devignetted = Self.devignetted(a, against: b) {
            corrected = (devignetted, b)
        } else {
            return false
        }
        var none = LayoutCellCache(capacity: 0), ignored: BestPairing?
        return directRelation(corrected.0, corrected.1, pairings: [frames], rows: (0, 1), cache: &none, best: &ignored) == .near
    }

    /// `photo` with the vignette it shows against `reference` divided out of its thumbnail,
    /// detail layout and colour; nil when the fitted gain is no vignette (`devignettedNear`).
    static func devignetted(_ photo: GroupingPhoto, against reference: GroupingPhoto) -> GroupingPhoto? {
        let side = LayoutThumbnail.side
        guard let profile = RadialGain.vignette(reference.thumbnail, photo.thumbnail, side: side) else { return nil }
        var corrected = photo
        corrected.thumbnail = RadialGain.corrected(photo.thumbnail, side: side, by: profile)
        if photo.hasDetail { corrected.detail = RadialGain.corrected(photo.detail, side: DetailLayout.side, by: profile) }
        if let chromaSide = ChromaLayout.side(of: photo.chroma) {
            let plane = chromaSide * chromaSide
            corrected.chroma = RadialGain.correctedChroma(photo.chroma[0..<plane], side: chromaSide, by: profile)
                + RadialGain.correctedChroma(photo.chroma[plane..<(2 * plane)], side: chromaSide, by: profile)
        }
        return corrected
    }
}
