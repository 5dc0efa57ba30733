import Analysis

/// Zoomed shots (grouping rules 22): two files of the same pixel size, one showing the other's
/// frame zoomed in, are two shots, not a photo and an edit of it.
///
/// An edit that crops keeps fewer pixels than the photo it was cut from; a camera's frames are
/// all its sensor's size. So a file that shows a part of another's frame at that other's own
/// width and height was not cut from it (an enlarged crop is a rare edit), but framed so: a burst
/// or bracket frame zoomed a few percent, which the layout alone confirms as a centre crop (the
/// hard set's zoomed burst frames, 4% in and a tenth of the frame brightened, differ from their
/// original by a change the scene-change rule cannot see). Such a pair is never near; it is
/// similar when its colours agree.
///
/// A zoom shows in two ways:
/// - search paired one's crop window (`FeatureWindow.crops`) with the other's whole frame, and
///   that pairing confirms them (`isZoomPairing`): the pairing is not a copy's evidence; and
/// - whole frames (or one window of both) confirm them, but one's frame matches a centred zoom
///   of the other's markedly better than the two line up unzoomed (`zoomFits`).
extension PairJudge {
    /// The centred zooms `zoomFits` tries, as shares of the frame's side: zooms of 3% to 10%.
    /// Under 3% the layout's 12×12 cells hardly move (a zoomed frame's cells shift by under a
    /// quarter of a cell at the edges); past 10% the crop windows' pairings take over.
    static let zoomScales: [Double] = [0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97]
    /// A zoom fits when its difference is at most this share of the unzoomed pairings' (the
    /// whole frames, and the same centred window of both), at least `zoomMargin` below it, and
    /// within the window limit.
    /// On the four corpora (development, holdout, hard set, free crops), the 2,434 pairs of one
    /// picture's files of one pixel size give 0.95 at the least (a mirror image against the
    /// unmirrored frame, 0.25–0.40 apart, past any limit; every other pair 0.98 or more), and
    /// none is taken for a zoom; 13 of the hard set's 21 zoomed burst frames are, against their
    /// original, at 0.34–0.80 (`ZoomFitMeasurement`; bench/RESULTS.md, "Zoomed shots").
    static let zoomGain: Float = 0.8
    /// The least a zoom must improve the difference by: below it the two are one picture to the
    /// layout, and ratios of such small differences are noise (two re-encodes differ by 0.001).
    static let zoomMargin: Float = 0.005

    /// A window registered between files of one size (rules 20 and 21) narrower than this share
    /// of the frame's width shows one zoomed: 2.5% in, half the step below the least of
    /// `zoomScales`. Registration finds the hard set's zoomed burst frames at 0.94–0.96.
    static let sameSizeWidestZoom = 0.975

    /// Whether the two files have the same pixel size, as a camera's frames do.
    static func sameSize(_ a: GroupingPhoto, _ b: GroupingPhoto) -> Bool {
        a.width > 0 && a.height > 0 && a.width == b.width && a.height == b.height
    }

    /// Whether the pairing compares a crop window (`FeatureWindow.crops`) of one photo with the
    /// other's whole frame: for files of one size, one shows the other zoomed.
    static func isZoomPairing(_ pairing: Grouper.Pairing) -> Bool {
        let crops = 1...FeatureWindow.crops.count
        return (crops.contains(pairing.slotA) && pairing.slotB == 0) || (pairing.slotA == 0 && crops.contains(pairing.slotB))
    }

    /// `.near` for two photos about to be called so at `pairing`, unless they are files of one
    /// size and one shows the other zoomed (`zoomFits`, seen as the pairing sees them: a
    /// mirrored copy's frame against the shot) and no vignette explains the fit
    /// (`vignetteExplainsZoom`): then `.otherShot`. Asked only of near verdicts: a fit among
    /// look-alikes that nothing else confirms would make other shots of them.
    func nearUnlessZoomed(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing, rows: (Int32, Int32),
                          cache: inout LayoutCellCache) -> PairRelation {
        guard Self.sameSize(a, b) else { return .near }
        let mirror = Int(Candidate.mirrorSlot), mirrored = (pairing.slotA == mirror) != (pairing.slotB == mirror)
        let framesA = cache.cells(row: rows.0, slot: mirrored ? mirror : 0, of: a), framesB = cache.cells(row: rows.1, slot: 0, of: b)
        guard zoomFits(a, b, mirroredA: mirrored, framesA: framesA, framesB: framesB) else { return .near }
        return !mirrored && vignetteExplainsZoom(a, b, framesA: framesA, framesB: framesB) ? .near : .otherShot
    }

    /// Whether a vignette between the whole frames explains a zoom's fit: their corners' ranks
    /// moved against their middle's (`radialRankShift`), and with the vignette divided out of
    /// either photo (`devignetted`) no zoom fits any more. Corners darkened all round read as a
    /// frame zoomed in: the unseen edits' strong and mild vignettes of one photo (Dune's,
    /// DarkestHour's) were each other's, or a noisy or sepia copy's, zoomed shot. A zoomed
    /// burst frame stays one: dividing a radial gain out leaves its content where the zoom put it.
    /// Not asked of a mirrored pairing (the gain is fitted on the frames as stored).
    func vignetteExplainsZoom(_ a: GroupingPhoto, _ b: GroupingPhoto, framesA: LayoutThumbnail.RankedCells,
                              framesB: LayoutThumbnail.RankedCells) -> Bool {
        guard Self.radialRankShift(framesA.ranks, framesB.ranks) >= Self.leastRadialShift else { return false }
        // The zoom fit is the same either way round (both zooms are tried, the differences are
        // symmetric): the reference is always passed first.
        func noZoomWithout(_ vignetted: GroupingPhoto, against reference: GroupingPhoto, referenceFrames: LayoutThumbnail.RankedCells) -> Bool {
            guard let corrected = Self.devignetted(vignetted, against: reference) else { return false }
            return !zoomFits(reference, corrected, mirroredA: false, framesA: referenceFrames,
                             framesB: LayoutThumbnail.RankedCells(Self.cells(corrected, 0)))
        }
        return noZoomWithout(b, against: a, referenceFrames: framesA) || noZoomWithout(a, against: b, referenceFrames: framesB)
    }

    /// Whether one photo's whole frame matches a centred zoom of the other's (`zoomScales`)
    /// better than the unzoomed pairings by `zoomGain` and `zoomMargin` (`zoomFits(_:)`).
    func zoomFits(_ a: GroupingPhoto, _ b: GroupingPhoto, mirroredA: Bool, framesA: LayoutThumbnail.RankedCells,
                  framesB: LayoutThumbnail.RankedCells) -> Bool {
        Self.zoomDifferences(a, b, mirroredA: mirroredA, framesA: framesA, framesB: framesB).contains(where: zoomFits)
    }

    /// Whether a zoom's difference is at most `zoomGain` of the unzoomed one and `zoomMargin` below
    /// it, and within the window limit (`windowConfirmation`): the zoom must itself confirm the two as a window would
    /// (the hard set's zoomed frames fit at 0.011–0.040). A fit that only improves a poor match
    /// (two other shots of one size, toned apart) says nothing of a zoom.
    func zoomFits(_ differences: (zoomed: Float, unzoomed: Float)) -> Bool {
        differences.zoomed <= Self.zoomGain * differences.unzoomed && differences.unzoomed - differences.zoomed >= Self.zoomMargin
            && differences.zoomed <= windowConfirmation
    }

    /// For each of `zoomScales`: the difference of one photo's whole frame from the other's
    /// zoomed (the better way round), and of the unzoomed pairings (the whole frames, and the
    /// same centred window of both). `framesA` and `framesB` are the photos' whole-frame cells,
    /// the first's of its mirror image when `mirroredA`. Empty when the frames differ by less
    /// than `zoomMargin`: one picture whatever the zoom, not tried.
    static func zoomDifferences(_ a: GroupingPhoto, _ b: GroupingPhoto, mirroredA: Bool, framesA: LayoutThumbnail.RankedCells,
                                framesB: LayoutThumbnail.RankedCells) -> [(zoomed: Float, unzoomed: Float)] {
        let frames = LayoutThumbnail.evidenceDifference(framesA, framesB)
        guard frames >= zoomMargin else { return [] }
        let samplerA = LayoutThumbnail.sampler(mirroredA ? LayoutThumbnail.mirrored(a.thumbnail) : a.thumbnail)
        let samplerB = LayoutThumbnail.sampler(b.thumbnail)
        return zoomScales.map { scale in
            let window = FeatureWindow(x: (1 - scale) / 2, y: (1 - scale) / 2, width: scale, height: scale)
            let zoomedA = LayoutThumbnail.RankedCells(LayoutThumbnail.cells(of: samplerA, in: window))
            let zoomedB = LayoutThumbnail.RankedCells(LayoutThumbnail.cells(of: samplerB, in: window))
            // Both zoomed alike: what a window leaves out of both (a caption at the bottom) is
            // not taken for a zoom.
            let unzoomed = min(frames, LayoutThumbnail.evidenceDifference(zoomedA, zoomedB))
            let zoomed = min(LayoutThumbnail.evidenceDifference(zoomedA, framesB), LayoutThumbnail.evidenceDifference(framesA, zoomedB))
            return (zoomed, unzoomed)
        }
    }
}
