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
    /// Another shot of the moment, and shown to be one (a frame zoomed at the same pixel size,
    /// rules 22, `PairJudge+Zoom`): similar, and never in one duplicate group, as distinct pairs
    /// are, also not through a third photo both look like (a small copy of the photo, near both).
    case otherShot
}

/// Decides a candidate pair on the photos' layout thumbnails and capture times
/// (docs/FEATURES.md, "Near or similar"), on the pairing of the two whose windows agree best.
///
/// Both photos say when they were taken, at different times: different shots whatever they
/// look like (an edit keeps the original's DateTimeOriginal and SubSecTimeOriginal), similar if
/// within `similarWindow` of each other and close under the looser `similarConfirmation`, else
/// nothing. Otherwise what differs decides (`LocalChange`): a change of the scene in one region
/// of frames that otherwise agree is another shot of the moment, similar; aligned cells that
/// agree (`LayoutThumbnail.evidenceDifference` within the limit) without one are the same
/// picture, near, unless their colours disagree (a colour variant of one design: distinct).
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
    /// The share of the frame a region of change must cover for the photos to be other shots of
    /// one moment rather than edits of one picture (`LocalChange.sceneChangeShare`; above 1, never).
    var sceneChangeShare = LocalChange.sceneChangeShare
    /// Neighbours that no pairing confirms (`similarShot`): the largest region of change that
    /// still counts them as shots of one moment.
    var similarRegionLimit = 0.25
    /// How far apart (seconds) two capture times may be for the shots to be of one moment.
    var similarWindow: Double = 3
    /// Old rows only: the dHash distance that must also hold.
    var dHashThreshold: Int = 16

    func relation(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> PairRelation? {
        var none = LayoutCellCache(capacity: 0)
        return relation(a, b, pairings: [pairing], rows: (0, 1), cache: &none)
    }

    /// What the two photos are on the pairings search made of them (`relation` may register
    /// them as well). The first pairing that confirms them (difference within its
    /// limit) and shows no change of the scene makes them near: the cost of most pairs, one
    /// layout comparison and one `LocalChange`; if its colours disagree, the next such pairing
    /// is looked at, and only if none agrees are they distinct. If it shows a change,
    /// the rest are compared too and the pairing whose windows agree best (smallest difference
    /// for its limit) decides: a change must show where the two line up best, not on a window
    /// that happens to be misaligned, and a window that happens to leave the change out does
    /// not hide it. Two plain graphics (rules 17) are judged on their colours at the first such
    /// pairing, or at a later confirming one that lines them up better if its colours agree and
    /// it shows no change: only that one later pairing's change is measured. Each photo's cells
    /// for a slot come from `cache` when they were worked out for an earlier pairing (`rows`
    /// name the photos there).
    ///
    /// `best` is left at the pairing whose windows agree best (for `registered`).
    func directRelation(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], rows: (Int32, Int32),
                        cache: inout LayoutCellCache, best: inout BestPairing?) -> PairRelation? {
        let side = LayoutThumbnail.side
        guard a.thumbnail.count == side * side, b.thumbnail.count == side * side else {
            // Rows from before pipeline 3: the whole frames only, pHash and dHash.
            let holds = pairings.contains(Grouper.Pairing(slotA: 0, slotB: 0)) && PerceptualHash.distance(a.dHash, b.dHash) <= dHashThreshold
            return holds ? .near : nil
        }
        // Both say when they were taken, at different times or with other exposure settings
        // (a bracket): different shots whatever they look like.
        let otherShots = a.isOtherShot(than: b)
        var changeSeen: Grouper.Pairing?, coloursDiffer = false, followNoEdit = false
        // Plain graphics are judged on their colours where they line up best (`plainGraphicsVerdict`).
        var plainGraphics: Bool?, bestAgreeing: (pairing: Grouper.Pairing, ratio: Float)?
        // Whether both frames are plain graphics, asked once and only when needed.
        func bothPlainGraphics() -> Bool {
            if plainGraphics == nil {
                plainGraphics = cache.isPlainGraphic(row: rows.0) { Self.isPlainGraphic(a) }
                    && cache.isPlainGraphic(row: rows.1) { Self.isPlainGraphic(b) }
            }
            return plainGraphics!
        }
        // Once two plain graphics have their first agreeing pairing, the later confirming ones.
        var laterConfirming: [(pairing: Grouper.Pairing, ratio: Float)] = []
        // Whether whole frames (mirrored or not) confirm them: two plain graphics confirmed only
        // through windows must show one ground colour too (`samePlainGround`, rules 19).
        var framesConfirm = false
        // Files of one pixel size: a pairing that shows one zoomed is no copy's evidence (rules
        // 22, `PairJudge+Zoom`).
        let sameSize = Self.sameSize(a, b)
        var zoomSeen: (pairing: Grouper.Pairing, difference: Float)?
        // Straightened frames are not compared as windows are: `relation` registers from them.
        for pairing in pairings where !Self.throughStraightened(pairing) {
            let cellsA = cache.cells(row: rows.0, slot: pairing.slotA, of: a)
            let cellsB = cache.cells(row: rows.1, slot: pairing.slotB, of: b)
            let difference = LayoutThumbnail.evidenceDifference(cellsA, cellsB)
            let limit = limit(pairing)
            if best == nil || difference / limit < best!.difference / best!.limit { best = BestPairing(pairing: pairing, difference: difference, limit: limit) }
            if Self.wholeFrames(pairing) && difference <= limit { framesConfirm = true }
            if otherShots {
                if difference <= similarConfirmation { break }
                continue
            }
            if bestAgreeing != nil {
                if difference <= limit { laterConfirming.append((pairing, difference / limit)) }
                continue
            }
            guard difference <= limit, changeSeen == nil else { continue }
            if sameSize && Self.isZoomPairing(pairing) {
                zoomSeen = zoomSeen ?? (pairing, difference)
                continue
            }
            if !changed(a, b, pairing, cellsA, cellsB) {
                // The same picture, unless in other colours (a colour variant of one design):
                // near if any confirming pairing's hues and colour order agree. Two plain graphics
                // must also agree in colour where they line up best, the confirming pairing of
                // least difference for its limit: a window a few percent off can leave the shape
                // that differs out of view.
                // Plain graphics are asked whether their colours follow one edit once, where
                // they line up best, below: their pairings are many and alike.
                if !Self.coloursDisagree(a, b, pairing) {
                    if bothPlainGraphics() {
                        bestAgreeing = (pairing, difference / limit)
                        continue
                    }
                    if !Self.coloursFollowNoEdit(a, b, pairing) { return nearUnlessZoomed(a, b, pairing, rows: rows, cache: &cache) }
                    followNoEdit = true
                    continue
                }
                coloursDiffer = true
            } else if !coloursDiffer {
                changeSeen = pairing
            }
        }
        // Two plain graphics: the later confirming pairing that lines them up better than the
        // first, if its colours agree and it shows no change of the scene, is where they are
        // judged. Only that one pairing's change is measured, not every pairing's in turn.
        if let first = bestAgreeing {
            for candidate in laterConfirming.sorted(by: { $0.ratio < $1.ratio }) where candidate.ratio < first.ratio {
                if Self.coloursDisagree(a, b, candidate.pairing) { continue }
                let cellsA = cache.cells(row: rows.0, slot: candidate.pairing.slotA, of: a)
                let cellsB = cache.cells(row: rows.1, slot: candidate.pairing.slotB, of: b)
                if !changed(a, b, candidate.pairing, cellsA, cellsB) { bestAgreeing = candidate }
                break
            }
        }
        if let bestAgreeing {
            // Rules 12's verdict first: past two edits they are distinct, which is more than
            // colours that follow no edit say (not confirmed).
            // The windows' colour cells serve both questions.
            let cellsA = Self.maskCells(a, bestAgreeing.pairing.slotA), cellsB = Self.maskCells(b, bestAgreeing.pairing.slotB)
            let plain = Self.plainWindows(cellsA, cellsB)  // both windows' grounds, found once
            let verdict = Self.plainGraphicsVerdict(plain)
            if verdict == .oneEdit, Self.coloursFollowNoEdit(cellsA, cellsB) { return nil }
            // Confirmed only through windows (a crop, or a part left out for an overlay), a colour
            // edit on top leaves a plain graphic too little to be told by: not confirmed.
            if verdict == .oneEdit, !framesConfirm, !Self.samePlainGround(plain) { return nil }
            return Self.relation(verdict)
        }
        if coloursDiffer { return .distinct }
        // Colours that follow no one edit are not confirmed, not distinct: per-channel
        // stretches (auto-contrast, equalise) of one graphic follow none either, and distinct
        // copies would split their family's group.
        if followNoEdit { return nil }
        guard let best else { return nil }
        if otherShots, let ta = a.captureTime, let tb = b.captureTime {
            return abs(ta - tb) <= similarWindow && best.difference <= similarConfirmation ? .similar : nil
        }
        // Only zoom pairings confirmed them: another shot, framed tighter (plain graphics are
        // left to their colour rules, which such a pairing does not reach: nothing).
        if changeSeen == nil, let zoomSeen {
            if bothPlainGraphics() { return nil }
            // Unless the whole frames, which search did not pair (their hashes apart, as a
            // contrast edit can set them), line up better than the zoom did, by `zoomMargin` at
            // least: then nothing is zoomed, and the frames are judged as if search had paired
            // them (the holdout's gamma and contrast edits of one photo: frames 0.018, its
            // 80% window against the other's frame 0.045; the hard set's zoomed MilkyWay frame:
            // 0.026 and 0.027, a zoom the layout hardly sees, kept for one).
            let frames = Grouper.Pairing(slotA: 0, slotB: 0)
            if !pairings.contains(frames),
               LayoutThumbnail.evidenceDifference(cache.cells(row: rows.0, slot: 0, of: a), cache.cells(row: rows.1, slot: 0, of: b))
                <= zoomSeen.difference - Self.zoomMargin {
                var framesBest: BestPairing?
                return directRelation(a, b, pairings: [frames], rows: rows, cache: &cache, best: &framesBest)
            }
            return Self.coloursDisagree(a, b, zoomSeen.pairing) || Self.plainColoursDiffer(a, b) ? nil : .otherShot
        }
        guard let changeSeen else { return nil }  // no pairing confirmed them
        // No capture times to tell shots apart (or the same one): what differs does. A change
        // of the scene in one region of frames that otherwise agree is another shot of the moment.
        if best.pairing == changeSeen || (sameSize && Self.isZoomPairing(best.pairing)) || sceneChanged(a, b, best.pairing) {
            // Other shots of one moment share its colours (the checks neighbour pairs get,
            // `similarShot`): pictures in other colours are nothing to each other.
            return Self.coloursDisagree(a, b, best.pairing) || Self.plainColoursDiffer(a, b) ? nil : .similar
        }
        if Self.coloursDisagree(a, b, best.pairing) { return .distinct }
        let relation = Self.relation(Self.plainGraphicsVerdict(a, b, best.pairing))
        return relation == .near ? nearUnlessZoomed(a, b, best.pairing, rows: rows, cache: &cache) : relation
    }

    /// Whether the windows `pairing` compares agree within its limit (`limit`), each photo's
    /// ranked cells from `cache`: a pairing that could confirm the pair, the question the reach
    /// checks ask of a pairing the judge was not handed.
    func confirms(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing, rows: (Int32, Int32), cache: inout LayoutCellCache) -> Bool {
        LayoutThumbnail.evidenceDifference(cache.cells(row: rows.0, slot: pairing.slotA, of: a),
                                           cache.cells(row: rows.1, slot: pairing.slotB, of: b)) <= limit(pairing)
    }

    /// The largest difference that confirms `pairing`: `frameConfirmation` for whole frames
    /// (mirrored or not), `windowConfirmation` for any window.
    func limit(_ pairing: Grouper.Pairing) -> Float {
        Self.wholeFrames(pairing) ? frameConfirmation : windowConfirmation
    }

    /// Whether the pairing compares the two whole frames, either of them mirrored or turned or not.
    static func wholeFrames(_ pairing: Grouper.Pairing) -> Bool {
        // Asked of every pairing the judge compares: no array made for it.
        func whole(_ slot: Int) -> Bool { slot == 0 || slot == Int(Candidate.mirrorSlot) || slot == Int(Candidate.turnedSlot) }
        return whole(pairing.slotA) && whole(pairing.slotB)
    }

    /// A pairing whose `strongestChange` is under this moved no region of the frame: `LocalChange`
    /// is not worked out. A change of the scene over `LocalChange.sceneChangeShare` (5.5%) of
    /// the frame moves the ranks of about 8 of the 144 cells. In the three corpora, the hard
    /// set's burst frames move their 8 most changed cells by 0.106 or more on average; 777 of
    /// 984 edited copies (re-encodes, resizes, tone edits nearly all) by under 0.05 and skip it.
    static let unchangedRanks: Float = 0.05

    /// The mean change of rank of the 8 most changed of two windows' ranked cells.
    static func strongestChange(_ a: [Float], _ b: [Float]) -> Float {
        let kept = 8
        // On the stack: asked of every confirming pairing.
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: kept) { largest in  // ascending
            largest.initialize(repeating: 0)
            for index in a.indices {
                let change = abs(a[index] - b[index])
                guard change > largest[0] else { continue }
                var slot = 0
                while slot + 1 < kept && largest[slot + 1] < change { largest[slot] = largest[slot + 1]; slot += 1 }
                largest[slot] = change
            }
            return largest.reduce(0, +) / Float(kept)
        }
    }

    /// Whether the pairing's ranked cells moved enough (`strongestChange`) for a change of the
    /// scene to be measured, and it shows one (`sceneChanged`).
    func changed(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing,
                 _ cellsA: LayoutThumbnail.RankedCells, _ cellsB: LayoutThumbnail.RankedCells) -> Bool {
        Self.strongestChange(cellsA.ranks, cellsB.ranks) >= Self.unchangedRanks && sceneChanged(a, b, pairing)
    }

    /// Whether the windows the pairing matched differ by a change of the scene: a largest
    /// region of change (`LocalChange`), or of a region lit differently once the windows are
    /// registered (`RegionalGain`, rules 15), of `sceneChangeShare` of the frame or more.
    func sceneChanged(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> Bool {
        Self.localChange(a, b, pairing).largestRegion >= sceneChangeShare || Self.regionalGain(a, b, pairing) >= sceneChangeShare
    }

    /// The two views a pairing compares, in the order the change measures (`LocalChange`,
    /// `RegionalGain`) take them: they mirror only their first view, so when the pairing
    /// mirrors the second photo's whole frame, the two photos swap places.
    /// `aspectA` and `aspectB`: the width over the height of the photos the views are of, in
    /// pixels (0 when not known). The planes are the photos' `comparedPlane`s (rules 33: a
    /// textured photo's detail layout, whose resampled views a crop's misfit does not alias).
    struct OrientedViews {
        var planeA: [UInt8], windowA: FeatureWindow, mirroredA: Bool
        var planeB: [UInt8], windowB: FeatureWindow
        var aspectA = 0.0, aspectB = 0.0
    }

    static func oriented(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> OrientedViews {
        let turned = Int(Candidate.turnedSlot)
        if pairing.slotA == turned { return oriented(a.turned, b, Grouper.Pairing(slotA: 0, slotB: pairing.slotB)) }
        if pairing.slotB == turned { return oriented(a, b.turned, Grouper.Pairing(slotA: pairing.slotA, slotB: 0)) }
        let mirror = Int(Candidate.mirrorSlot)
        if pairing.slotB == mirror && pairing.slotA != mirror {
            return OrientedViews(planeA: b.comparedPlane.pixels, windowA: .full, mirroredA: true,
                                 planeB: a.comparedPlane.pixels, windowB: window(a, pairing.slotA), aspectA: aspect(b), aspectB: aspect(a))
        }
        return OrientedViews(planeA: a.comparedPlane.pixels, windowA: window(a, pairing.slotA), mirroredA: pairing.slotA == mirror,
                             planeB: b.comparedPlane.pixels, windowB: window(b, pairing.slotB), aspectA: aspect(a), aspectB: aspect(b))
    }

    private static func aspect(_ photo: GroupingPhoto) -> Double {
        photo.width > 0 && photo.height > 0 ? Double(photo.width) / Double(photo.height) : 0
    }

    /// The largest region lit differently between the windows the pairing matched, registered
    /// (`RegionalGain`).
    static func regionalGain(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing,
                             settledBelow: Double = LocalChange.sceneChangeShare) -> Double {
        let views = inOneShape(oriented(a, b, pairing))
        return RegionalGain.largestRegion(views.planeA, views.windowA, mirroredA: views.mirroredA,
                                          views.planeB, views.windowB, settledBelow: settledBelow)
    }

    /// The local change between the windows the pairing matched (`LocalChange`).
    static func localChange(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing,
                            settledBelow: Double = LocalChange.sceneChangeShare) -> LocalChange {
        let views = oriented(a, b, pairing)
        return LocalChange.between(views.planeA, views.windowA, mirroredA: views.mirroredA,
                                   views.planeB, views.windowB, settledBelow: settledBelow)
    }

    /// `LocalChange.unrotatedViews` for `pairing`.
    static func localChangeViews(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> (a: [Float], b: [Float], changed: [Bool]) {
        let views = oriented(a, b, pairing)
        return LocalChange.unrotatedViews(views.planeA, views.windowA, mirroredA: views.mirroredA, views.planeB, views.windowB)
    }

    /// The part of the photo slot `slot` names (the whole frame for its mirror image and its
    /// turned frame too).
    static func window(_ photo: GroupingPhoto, _ slot: Int) -> FeatureWindow {
        switch slot {
        case 0, Int(Candidate.mirrorSlot), Int(Candidate.turnedSlot): .full
        case Int(Candidate.contentSlot): photo.contentBox ?? .full
        case Int(Candidate.squareSlot): CentreSquare.window(width: photo.width, height: photo.height) ?? .full
        default: FeatureWindow.crops[slot - 1]
        }
    }

    /// Whether both photos have colour and their colours say they are different pictures on
    /// the windows the pairing matched: hues that differ past `ChromaLayout.hueLimit`, or
    /// colours whose order, channel by channel, no edit could give (`ColourOrder`).
    static func coloursDisagree(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> Bool {
        guard ChromaLayout.isLayout(a.chroma), ChromaLayout.isLayout(b.chroma) else { return false }
        let chromaA = chromaCells(a, pairing.slotA), chromaB = chromaCells(b, pairing.slotB)
        if ChromaLayout.onlyOneToned(chromaA, chromaB) { return false }
        if ChromaLayout.disagree(chromaA, chromaB) { return true }
        let coloursA = colourCells(a, pairing.slotA, chroma: chromaA), coloursB = colourCells(b, pairing.slotB, chroma: chromaB)
        guard !coloursA.isEmpty, !coloursB.isEmpty else { return false }  // no thumbnail: rows before pipeline 3
        return ColourOrder.disagree(coloursA, coloursB)
    }

    /// Whether, where their brightness agrees on the pairing's windows, the photos' colours
    /// follow no single colour edit, or one that turns hues past 30° (`ColourMap`, rules 13 and 14). Asked only of pairs about to be
    /// called near: other shots of one moment may differ in colour where a subject moved.
    static func coloursFollowNoEdit(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> Bool {
        coloursFollowNoEdit(maskCells(a, pairing.slotA), maskCells(b, pairing.slotB))
    }

    /// `coloursFollowNoEdit` on the pairing's windows' `maskCells` (false without them).
    static func coloursFollowNoEdit(_ cellsA: [ColourMask.Cell]?, _ cellsB: [ColourMask.Cell]?) -> Bool {
        guard let cellsA, let cellsB else { return false }
        return ColourMap.disagree(cellsA, cellsB)
    }

    /// The colours of the cells `chromaCells` gives for `slot`: their luma area-averaged from the
    /// layout thumbnail on the same grid.
    static func colourCells(_ photo: GroupingPhoto, _ slot: Int, chroma: [(cb: Float, cr: Float)]) -> [ColourOrder.Colour] {
        let side = ChromaLayout.comparisonSide
        guard photo.thumbnail.count == LayoutThumbnail.side * LayoutThumbnail.side else { return [] }
        if slot == Int(Candidate.turnedSlot) { return colourCells(photo.turned, 0, chroma: chroma) }
        let thumbnail = slot == Int(Candidate.mirrorSlot) ? LayoutThumbnail.mirrored(photo.thumbnail) : photo.thumbnail
        let luma = LayoutThumbnail.averages(ofPlane: thumbnail, side: LayoutThumbnail.side, in: window(photo, slot), columns: side, rows: side)
        return ColourOrder.colours(luma: luma, chroma: chroma)
    }

    static func chromaCells(_ photo: GroupingPhoto, _ slot: Int) -> [(cb: Float, cr: Float)] {
        switch slot {
        case 0: ChromaLayout.cells(of: photo.chroma, in: .full)
        case Int(Candidate.mirrorSlot): ChromaLayout.cells(of: photo.chroma, in: .full, mirrored: true)
        case Int(Candidate.turnedSlot): chromaCells(photo.turned, 0)
        default: ChromaLayout.cells(of: photo.chroma, in: window(photo, slot))
        }
    }

    /// The ranked comparison cells of the part of `photo` that `slot` names, from its
    /// `comparedPlane` (rules 33: a textured photo's detail layout, not its thumbnail).
    static func cells(_ photo: GroupingPhoto, _ slot: Int) -> [Float] {
        if slot == Int(Candidate.turnedSlot) { return cells(photo.turned, 0) }
        let (plane, side) = photo.comparedPlane
        guard slot != Int(Candidate.mirrorSlot) else {
            return LayoutThumbnail.cells(ofPlane: LayoutThumbnail.mirrored(plane, side: side), side: side, in: .full)
        }
        return LayoutThumbnail.cells(ofPlane: plane, side: side, in: window(photo, slot))
    }
}
