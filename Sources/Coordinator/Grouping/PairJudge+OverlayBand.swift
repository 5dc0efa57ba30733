import Analysis

/// Overlay bands (rules 46): a copy with a band laid across its whole width (a proof's
/// translucent banner, a caption bar), which reads as a region of the scene lit differently.
/// docs/FEATURES.md, "Overlay bands".
extension PairJudge {
    /// Whole frames are looked at for a band when their difference is within this many times the
    /// frame limit (0.09). The unseen-edits set's 73 banner copies (16% of the height, across the
    /// middle) lie 0.04–0.15 from their originals' frames.
    static let bandReach: Float = 2.0

    /// The least share of the frames' rank changes (on the 12×12 cells they were compared on)
    /// that the three rows of cells that changed most together hold: a band moves the ranks of
    /// its rows, two photos alike differ all over. Measured on the thumbnails' 12×12 area
    /// averages, ranked: the banner copies 0.45 at the least (0.47 at the fifth percentile, 0.54
    /// in the median); of the hard set's 1,038 pairs of files whose cells differ by a mean rank
    /// change under 0.12, 0.38 in the median, 40% reach 0.4. A cheap gate on cells already
    /// ranked: the band's search is asked of fewer pairs.
    static let leastBandRankShare: Float = 0.4

    /// The share of the rank changes between `a` and `b` (`comparisonSide`² cells) held by the
    /// three consecutive rows of cells that changed most.
    static func bandRankShare(_ a: [Float], _ b: [Float]) -> Float {
        let side = LayoutThumbnail.comparisonSide, run = 3
        guard a.count == side * side, b.count == a.count else { return 0 }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: side) { rowChange in
            for row in 0..<side {
                var change: Float = 0
                for index in (row * side)..<((row + 1) * side) { change += abs(b[index] - a[index]) }
                rowChange[row] = change
            }
            let total = rowChange.reduce(0, +)
            guard total > 0 else { return 0 }
            var most: Float = 0
            for top in 0...(side - run) { most = max(most, rowChange[top..<(top + run)].reduce(0, +)) }
            return most / total
        }
    }

    /// Whether the whole frames of `a` and `b`, a pair the pairings left without a verdict or
    /// called similar, are near once a band one carries over the other is given the other's
    /// levels (`OverlayBand`): judged as whole frames are, by every check, at the frame limit.
    /// Only when search paired the whole frames, the two do not say they are different shots,
    /// their frames' rank changes gather in a band of rows (`bandRankShare`) and their frames
    /// came within `bandReach` of the limit.
    func unbandedNear(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], rows: (Int32, Int32),
                      cache: inout LayoutCellCache) -> Bool {
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        guard let (cellsA, cellsB) = Self.pairedFrameCells(a, b, pairings: pairings, rows: rows, cache: &cache),
              Self.bandRankShare(cellsA.ranks, cellsB.ranks) >= Self.leastBandRankShare,
              LayoutThumbnail.evidenceDifference(cellsA, cellsB) <= frameConfirmation * Self.bandReach else { return false }
        var none = LayoutCellCache(capacity: 0), ignored: BestPairing?
        // Plain graphics are left to their colour rules, as registration leaves them (asked once
        // a band is found: the mask costs more than the search). A graphic's content often lies
        // in one strip across a plain ground, and clearing that strip clears the picture.
        func plain() -> Bool {
            cache.isPlainGraphic(row: rows.0, make: { Self.isPlainGraphic(a) }) || cache.isPlainGraphic(row: rows.1, make: { Self.isPlainGraphic(b) })
        }
        // Either may carry the band: the copy is the one whose band lowers the photo's contrast.
        if let cleared = Self.unbanded(b, against: a), !plain(),
           directRelation(a, cleared, pairings: [frames], rows: (0, 1), cache: &none, best: &ignored) == .near { return true }
        if let cleared = Self.unbanded(a, against: b), !plain(),
           directRelation(b, cleared, pairings: [frames], rows: (0, 1), cache: &none, best: &ignored) == .near { return true }
        return false
    }

    /// `copy` with the band it carries over `photo` (`OverlayBand.find`) given the photo's levels
    /// in its thumbnail, detail layout and colour; nil when it carries none.
    static func unbanded(_ copy: GroupingPhoto, against photo: GroupingPhoto) -> GroupingPhoto? {
        let side = LayoutThumbnail.side
        guard let band = OverlayBand.find(photo: photo.thumbnail, copy: copy.thumbnail, side: side) else { return nil }
        var cleared = copy
        cleared.thumbnail = OverlayBand.cleared(copy.thumbnail, photo: photo.thumbnail, planeSide: side, band: band)
        if copy.hasDetail {
            // Without the photo's detail layout to clear it from, the copy is judged on its thumbnail.
            cleared.detail = photo.hasDetail
                ? OverlayBand.cleared(copy.detail, photo: photo.detail, planeSide: DetailLayout.side, band: band) : []
        }
        if let chromaSide = ChromaLayout.side(of: copy.chroma), ChromaLayout.side(of: photo.chroma) == chromaSide {
            let plane = chromaSide * chromaSide
            cleared.chroma = OverlayBand.clearedChroma(copy.chroma[0..<plane], photo: photo.chroma[0..<plane], planeSide: chromaSide, band: band)
                + OverlayBand.clearedChroma(copy.chroma[plane..<(2 * plane)], photo: photo.chroma[plane..<(2 * plane)],
                                            planeSide: chromaSide, band: band)
        }
        return cleared
    }
}
