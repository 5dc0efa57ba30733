import Analysis

/// Registration (rules 20 and 21): a crop or a straightened crop that no fixed window fits.
///
/// Workers hash a fixed set of windows (`FeatureWindow.crops`), and the judge compares the
/// windows search paired. A crop that keeps 85% of one side and 90% of the other, or a photo
/// turned 4° and cropped to hide its corners, lies a few percent off every one of them: search
/// still pairs it with its original (its hashes are within reach), but on fine texture (a
/// forest, leaves, rows of cups) the misfit alone moves the layout past the window limit. Such a
/// pair is registered: the copy's whole
/// frame is looked for in the original as a `TurnedWindow` (moved, scaled to the copy's
/// shape, turned up to `registrationAngle`), from the pairing that came closest or from a
/// straightened frame search paired (pipeline 6, rules 21), and where it
/// fits within the window limit, the part of the original under it is judged against the copy
/// as two whole frames are, by every check (change of the scene, colours), at the window limit.
/// docs/FEATURES.md, "Registered crops", has the numbers.
extension PairJudge {
    /// The pairing whose windows agreed best, for its limit.
    struct BestPairing {
        var pairing: Grouper.Pairing
        var difference: Float
        var limit: Float
    }

    /// Registration is tried on pairs whose best pairing came within this many times its limit.
    /// The hard set's crops and straightened crops that no pairing search made confirms come
    /// within 1.13 to 1.43 of it (one more at 1.88); crops of two sides of a busy scene
    /// (`RegisteredCropsTests`, 85% × 90%) within 1.5 to 2.5, and register up to 1.9 from a
    /// seed of their own width (`cropSeeds`). Each pair in reach costs a registration's seeds,
    /// and pairs further off are mostly different photos: when first tried, 2 took 5.4 s of a
    /// million rows' judging; with the gates on the descent and no registration from whole
    /// frames, a million rows' judging took 28.3–29.5 s at 2 with that seed against 27.3–27.7 s
    /// before (docs/FEATURES.md, "Registered crops").
    static let registrationReach: Float = 2.0

    /// Whether a pair left without a verdict came close: no pairing within its limit, the best
    /// within `registrationReach` times it (registration was tried and found no fit).
    /// `Grouper.reachCheck` judges such a pair again when search left out a pairing that could
    /// have changed that.
    static func cameClose(_ best: BestPairing) -> Bool {
        best.difference > best.limit && best.difference <= best.limit * registrationReach
    }

    /// The difference a registered part must come within: the window limit, and half the
    /// difference of the fixed pairing that came closest (`registrationGain`).
    func registrationLimit(_ best: BestPairing) -> Float {
        min(windowConfirmation, best.difference * Self.registrationGain)
    }

    /// The registered part must differ from the copy by at most this share of the best
    /// pairing's difference: a window that fits removes most of a geometric misfit, while
    /// another shot keeps what changed in it. On the hard set, 37 of the 41 pairs of one photo's
    /// files that registered within the window limit did so at 0.12–0.40 of their best
    /// pairing's difference (4 at 0.55–0.84); the two burst frames that registered, at 0.58
    /// and 0.61.
    static let registrationGain: Float = 0.5
    /// How far a registered window may turn (radians): 6°, past any straightening the corpora
    /// hold (4°) and short of a different framing.
    static let registrationAngle = 6.0 * Double.pi / 180
    /// How far a registration from a straightened frame may turn: 2° past the steepest
    /// (`FeatureWindow.straightenings`, 6°), as a straighten tool's crop at 8° still is.
    static let registrationStraightenedAngle = 8.0 * Double.pi / 180
    /// The smallest registered window, a share of the original's width: a crop that keeps less
    /// is a different picture of the scene as often as an edit of it.
    static let registrationSmallest = 0.7
    /// The descent: steps of the centre and width (fractions of the frame) and of the angle.
    static let registrationSteps: [(move: Double, turn: Double)] = [(0.02, 0.026), (0.01, 0.013), (0.005, 0.006)]
    /// Samples a cell a side (times the plane's pixels per thumbnail pixel) in the descent's last
    /// stage on a detail layout, against 2 in the others (rules 35). On fine texture the point
    /// samples still alias: the holdout's 3% crop of a brick wall, at its true window in the
    /// wall's 64×64 plane, measures 0.050 with 8 samples a side and past the window limit (0.06)
    /// with 4, where exact area averages give 0.040. Only the last stage pays for them (a
    /// million rows' judging 26.1 s, as before; one run with every stage at 8 took 28.0 s, within
    /// this machine's noise but not shown to be free).
    static let fineSamples = 4
    /// The descent's gates (in `register`) are taken from this many times the registration's
    /// limit, up to the window limit (rules 45; until then from the limit itself). The limit is
    /// also half the best fixed pairing's difference (`registrationGain`), so gating at it asked
    /// a seed to beat that pairing by 15% before any move, and a crop drawn anywhere in the frame
    /// starts from a seed no better than the window that paired it. Of the free crops' 65 files
    /// left out of their photo's group at rules 44, 45 had a pairing within reach; gated at the
    /// limit 5 registered within it, at 1.4 times it 26. Free crops' recall by the widening
    /// (`cull run`, bench/hard-set.sh's set; precision 1 in each): 1 (before) 0.885, 1.2 0.905,
    /// 1.4 0.913, 1.6 0.915, up to the window limit 0.917. Most pairs registered are two
    /// photos alike, and wider gates let more of their descents start (placements scored at
    /// 300,000 benchmark rows 509,409 → 584,522, 663,994, –, 980,461; a million rows' judging
    /// 2–3 s more at 1.4), so the gates widen only for a copy with fewer pixels than the photo
    /// it is looked for in, as a crop saved at its own size has: 546,530 placements (+7%), the
    /// same recall. (A crop enlarged again registers as before rules 45.)
    static let registrationGateWidening: Float = 1.4
    /// Moves a stage of the descent makes at the most.
    static let registrationMoves = 8

    /// What the two photos are: the pairings' verdict (`directRelation`), or, when no pairing
    /// came within its limit but the best came within `registrationReach` times it, near if one
    /// registers in the other (`registered`). A pairing within its limit has had its say: a
    /// change of the scene it showed (another shot) or colours that follow no edit are not
    /// explained away by a window fitted to hide them. (Tried on pairs called similar too,
    /// registration turned 17 of the hard set's 504 pairs of a burst frame and a file of its
    /// scene from similar to near, and 4 of 2,713 similar pairs of the benchmark's 100,000 rows.)
    ///
    /// One exception (rules 29): a pair called similar that registers from a straightened frame
    /// search paired, within half the best pairing's difference, is near. A copy turned a few
    /// degrees and cropped keeps its layout close enough for the whole frames (or a crop window)
    /// to confirm it, and the turned lines read there as a change of the scene; the straightened
    /// frame lines them up without one, while another shot keeps its change where it is
    /// registered. On the hard set's files (every pair of files of one scene), handed every
    /// pairing within reach and the whole frames too, 28 of 1,386 pairs of one photo went from
    /// similar to near (8 on the pairings within reach alone), all of them a straightened crop
    /// and a file of its photo, and none of 757 pairs of different shots changed
    /// (`StraightenedOverFramesTests`, bench/RESULTS.md).
    ///
    /// Pairings through a straightened frame (pipeline 6, `FeatureWindow.straightenedWindows`)
    /// are not compared as windows are: when the others give no verdict, the pair is registered
    /// from them (rules 21, `straightenedRegistration`).
    func relation(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], rows: (Int32, Int32),
                  cache: inout LayoutCellCache) -> PairRelation? {
        var best: BestPairing?
        return relation(a, b, pairings: pairings, rows: rows, cache: &cache, best: &best)
    }

    /// `relation`, leaving `best` at the fixed pairing whose windows agreed best (nil when only
    /// straightened frames were paired): `Grouper.judge` asks it of pairs without a verdict.
    func relation(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], rows: (Int32, Int32),
                  cache: inout LayoutCellCache, best: inout BestPairing?) -> PairRelation? {
        best = nil
        // A turned frame (rules 43) speaks only when the other pairings leave the pair without
        // a verdict, or, where they call it similar, to call it near; `best` stays theirs.
        if pairings.contains(where: Self.throughTurned) {
            let fixed = pairings.filter { !Self.throughTurned($0) }
            let verdict = fixed.isEmpty ? nil : relation(a, b, pairings: fixed, rows: rows, cache: &cache, best: &best)
            guard verdict == nil || verdict == .similar else { return verdict }
            let turned = turnedRelation(a, b, pairings: pairings)
            return verdict == .similar && turned != .near ? verdict : turned
        }
        let direct = directRelation(a, b, pairings: pairings, rows: rows, cache: &cache, best: &best)
        if direct == .similar, let best, straightenedCopy(a, b, pairings: pairings, best: best, rows: rows, cache: &cache) { return .near }
        // A vignette reads as a change of the scene all round the frame (rules 42).
        if direct == nil || direct == .similar, devignettedNear(a, b, pairings: pairings, rows: rows, cache: &cache) { return .near }
        // So does a band laid across the frame's width (rules 46).
        if direct == nil || direct == .similar, unbandedNear(a, b, pairings: pairings, rows: rows, cache: &cache) { return .near }
        guard direct == nil else { return direct }
        // Within the window limit, and within half the difference of the fixed pairing that came
        // closest when one was compared.
        var within = windowConfirmation
        if let best {
            guard best.difference > best.limit else { return nil }
            within = registrationLimit(best)
            if best.difference <= best.limit * Self.registrationReach,
               registered(a, b, from: best.pairing, within: within, rows: rows, cache: &cache) { return .near }
        }
        return straightenedRegistration(a, b, pairings: pairings, within: within, rows: rows, cache: &cache) ? .near : nil
    }

    /// Whether a pair the fixed pairings call similar is a straightened copy (rules 29): it
    /// registers from a straightened frame search paired, within the window limit and half the
    /// best pairing's difference. Asked by `relation` and by `Grouper.reachCheck`, which judges
    /// near pairs again on every pairing within reach.
    func straightenedCopy(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], best: BestPairing,
                          rows: (Int32, Int32), cache: inout LayoutCellCache) -> Bool {
        straightenedRegistration(a, b, pairings: pairings, within: registrationLimit(best),
                                 rows: rows, cache: &cache)
    }

    /// Whether the pair registers within `within` from a pairing through a straightened frame:
    /// one photo's straightened frame in the other's, or the other's in the first (search may
    /// pair either way, and only one is the copy), each such pairing in turn until one registers
    /// (rules 30; only the first each way before, so a copy turned 4° with several straightened
    /// frames within reach got a verdict that changed with which of them the probes returned).
    func straightenedRegistration(_ a: GroupingPhoto, _ b: GroupingPhoto, pairings: [Grouper.Pairing], within: Float,
                                  rows: (Int32, Int32), cache: inout LayoutCellCache) -> Bool {
        pairings.contains { start in
            (start.slotA == 0 || start.slotB == 0) && Self.throughStraightened(start)
                && registered(a, b, from: start, within: within, rows: rows, cache: &cache)
        }
    }

    /// Whether registration starts from `pairing` of `a` and `b` whatever its difference: a
    /// straightened frame (rules 21), or the whole frames of a photo and a crop of one of its
    /// sides (rules 35, `frameCrop`). `Grouper.similarNeighbours` judges a pair again on every
    /// pairing within reach when the probes missed one of these.
    static func startsRegistration(_ pairing: Grouper.Pairing, _ a: GroupingPhoto, _ b: GroupingPhoto) -> Bool {
        throughStraightened(pairing) || pairing == Grouper.Pairing(slotA: 0, slotB: 0) && frameCrop(a, b) != nil
    }

    /// Whether the pairing compares a straightened frame (`FeatureWindow.straightenedWindows`)
    /// of one photo with the other's frame.
    static func throughStraightened(_ pairing: Grouper.Pairing) -> Bool {
        pairing.slotA > FeatureWindow.crops.count && pairing.slotA <= FeatureWindow.hashedCount
            || pairing.slotB > FeatureWindow.crops.count && pairing.slotB <= FeatureWindow.hashedCount
    }

    /// Where registration starts: a crop window (`FeatureWindow.crops`) or a straightened frame.
    enum RegistrationStart {
        case crop(FeatureWindow)
        case straightened(Int)
    }

    /// Whether one photo's whole frame registers in the other (starting from the window
    /// `pairing` matched against the other's frame) within `limit` and the part under it is
    /// near the other's frame. Not for two shots with different capture
    /// times, nor plain graphics (their colour rules decide), nor mirrored or overlay
    /// pairings, nor whole frames but of a photo and a crop of one of its sides (`frameCrop`).
    func registered(_ a: GroupingPhoto, _ b: GroupingPhoto, from pairing: Grouper.Pairing, within limit: Float, rows: (Int32, Int32),
                    cache: inout LayoutCellCache) -> Bool {
        let side = LayoutThumbnail.side
        guard a.thumbnail.count == side * side, b.thumbnail.count == side * side,
              a.width > 0, a.height > 0, b.width > 0, b.height > 0 else { return false }
        if a.isOtherShot(than: b) { return false }
        let crops = 1...FeatureWindow.crops.count, straightened = (FeatureWindow.crops.count + 1)...FeatureWindow.hashedCount
        // The photo the window lies in, the other, and where the window starts:
        let original: GroupingPhoto, copy: GroupingPhoto, start: RegistrationStart
        switch (pairing.slotA, pairing.slotB) {
        case (let slot, 0) where crops.contains(slot): (original, copy, start) = (a, b, .crop(FeatureWindow.crops[slot - 1]))
        case (0, let slot) where crops.contains(slot): (original, copy, start) = (b, a, .crop(FeatureWindow.crops[slot - 1]))
        case (let slot, 0) where straightened.contains(slot): (original, copy, start) = (a, b, .straightened(slot - 1))
        case (0, let slot) where straightened.contains(slot): (original, copy, start) = (b, a, .straightened(slot - 1))
        case (0, 0):
            // From whole frames only when their shapes say one is a crop of one side of the
            // other (rules 35, `frameCrop`): frames that nearly agree are far more often two
            // photos alike than a crop of one. At 300,000 benchmark rows, 9,737 of 10,047
            // registrations started from whole frames of any shape and 22 of those ended near,
            // against 136 of the 310 from a window.
            guard let (larger, smaller) = Self.frameCrop(a, b) else { return false }
            (original, copy, start) = (larger, smaller, .crop(.full))
        default: return false
        }
        // Gated wider only for a copy with fewer pixels than its original, as a crop saved at
        // its own size has (`registrationGateWidening`).
        let gate = copy.width * copy.height < original.width * original.height
            ? min(windowConfirmation, limit * Self.registrationGateWidening) : limit
        guard let window = Self.register(copy, in: original, from: start, limit: limit, gatedAt: gate) else { return false }
        // A part of the frame at the frame's own pixel size: a zoomed shot (rules 22).
        if Self.sameSize(original, copy) && window.width < Self.sameSizeWidestZoom { return false }
        // Plain graphics are left to their colour rules: a window fitted freely to a few flat
        // shapes explains more than a fixed one, and rules 19 already finds a fixed window and
        // one colour edit too much to tell two generated graphics apart by. (Registering them
        // too grouped one more of the hard set's burst frames, through a forest photo the
        // mask reads as plain: precision 0.983 to 0.975.) Asked once a window registered: most
        // registrations end at their seeds, and the plain-graphic mask costs more than a seed.
        if cache.isPlainGraphic(row: rows.0, make: { Self.isPlainGraphic(a) })
            || cache.isPlainGraphic(row: rows.1, make: { Self.isPlainGraphic(b) }) { return false }
        // The registered part is judged as a whole frame, at the window limit.
        var strict = self, none = LayoutCellCache(capacity: 0), ignored: BestPairing?
        strict.frameConfirmation = windowConfirmation
        let part = Self.part(of: original, under: window)
        guard strict.directRelation(part, copy, pairings: [Grouper.Pairing(slotA: 0, slotB: 0)],
                                    rows: (0, 1), cache: &none, best: &ignored) == .near else { return false }
        // A window fits a second viewpoint's mean displacement too (the other half of a stereo
        // pair, a step to the side): what tells it from a crop is the parallax left, parts of
        // the scene displaced by different amounts (rules 45, `parallaxLimit`). Not asked of a
        // registration from a straightened frame: a turned copy of long parallel lines (a
        // deck's planks, `StraightenedOverFramesTests`) lines its blocks up a stripe apart as
        // well as in place, which the measure reads as parallax.
        guard case .crop = start else { return true }
        return Parallax.spread(part.thumbnail, copy.thumbnail, side: LayoutThumbnail.side).map { $0 <= Self.parallaxLimit } ?? true
    }

    /// The most a registered part's blocks may be displaced against the copy's unevenly
    /// (`Parallax.spread`, thumbnail pixels): past it, the copy is another viewpoint of the scene.
    /// Of the registrations that end near at the window limit, the free crops' measure at most
    /// 0.36 (34), the stereo pair's halves 0.51–0.84 (17, all of them); 33 of the hard set's
    /// 1,151 pairs of one photo's files (smooth wallpapers whose blocks place on their noise)
    /// pass it, and no group of the hard set changed (docs/FEATURES.md, "Free crops and other
    /// viewpoints").
    static let parallaxLimit: Float = 0.45

    /// The part of `photo` under `window` as a photo of its own: its thumbnail, detail layout (if
    /// it keeps one) and chroma layout resampled from the window, no borders, and its size in
    /// pixels the window's (the copy's shape: `inOneShape` reads it when the part's change of
    /// the scene is measured).
    static func part(of photo: GroupingPhoto, under window: TurnedWindow) -> GroupingPhoto {
        var part = photo
        part.width = max(1, Int((window.width * Double(photo.width)).rounded()))
        part.height = max(1, Int((Double(part.width) / window.shape).rounded()))
        part.thumbnail = window.warped(photo.thumbnail[...], side: LayoutThumbnail.side)
        if photo.hasDetail { part.detail = window.warped(photo.detail[...], side: DetailLayout.side) }
        if let chromaSide = ChromaLayout.side(of: photo.chroma) {
            let plane = chromaSide * chromaSide
            part.chroma = window.warped(photo.chroma[0..<plane], side: chromaSide)
                + window.warped(photo.chroma[plane..<(2 * plane)], side: chromaSide)
        }
        part.contentBox = nil
        return part
    }

    /// Where `copy`'s whole frame lies in `original`, if anywhere within `limit`: a descent over
    /// the window's centre, width, turn and corners from the best of a few seeds in `start`,
    /// each placement scored by `LayoutThumbnail.evidenceDifference` of its ranked cells and
    /// the copy's. Gives up early on placements that stay far off `gate` (see the gates below).
    ///
    /// The judge gates wider than `limit` (rules 45, `registrationGateWidening`).
    static func register(_ copy: GroupingPhoto, in original: GroupingPhoto, from start: RegistrationStart, limit: Float,
                         gatedAt gate: Float? = nil) -> TurnedWindow? {
        let gate = gate ?? limit
        let cellsSide = LayoutThumbnail.comparisonSide
        let target = LayoutThumbnail.RankedCells(cells(copy, 0))
        // Placements are resampled from the original's detail layout where it keeps one (rules
        // 33). A comparison cell spans about two of a thumbnail's pixels a side and five of a
        // detail layout's: twice the samples a side keep each cell near its area average, which
        // on fine texture the point samples of a 2×2 miss. The last stage of the descent doubles
        // them again on a detail layout (rules 35, `fineSamples`).
        let (plane, side) = original.comparedPlane
        let sampling = side / LayoutThumbnail.side
        let imageAspect = Double(original.width) / Double(original.height), shape = Double(copy.width) / Double(copy.height)
        let seeds: [TurnedWindow], largestTurn: Double
        switch start {
        case .crop(let window):
            seeds = cropSeeds(window, imageAspect: imageAspect, shape: shape, keptWidth: Double(copy.width) / Double(original.width))
            largestTurn = registrationAngle
        case .straightened(let index):
            seeds = straightenedSeeds(index, imageAspect: imageAspect, shape: shape)
            largestTurn = registrationStraightenedAngle
        }
        // One placement's ranked cells, refilled in place for each (about 60 a registration):
        // not two arrays and a second pass over the ranks for their ties each time.
        var placed = LayoutThumbnail.RankedCells([]), stageSamples = 2
        func score(_ window: TurnedWindow, samples: Int? = nil) -> Float? {
            let samples = samples ?? stageSamples
            guard window.width >= registrationSmallest, window.width <= 1, abs(window.angle) <= largestTurn,
                  window.isInside() else { return nil }
            let values = window.resampled(plane[...], side: side, columns: cellsSide, rows: cellsSide, samples: samples * sampling)
            placed.refill(averages: values.count) { out in _ = out.initialize(from: values) }
            return LayoutThumbnail.evidenceDifference(placed, target)
        }
        var best: (window: TurnedWindow, difference: Float)?
        for seed in seeds {
            // A sample a cell is enough to choose where to start from.
            if let difference = score(seed, samples: 1), best == nil || difference < best!.difference { best = (seed, difference) }
        }
        if let seed = best { best = score(seed.window).map { (seed.window, $0) } }
        // Where the descent is worth its cost (about 60 placements): on the hard set, every pair
        // that registered started within 1.67 times the limit and was within 1.37 after one
        // move; pairs that did not mostly started past 1.7 or stayed past 1.4.
        guard var current = best, current.difference <= gate * 1.7 else { return nil }
        for (stage, step) in registrationSteps.enumerated() {
            if stage == registrationSteps.count - 1, sampling > 1 {
                stageSamples = fineSamples
                guard let difference = score(current.window) else { return nil }
                current.difference = difference
            }
            for iteration in 0..<registrationMoves {
                // A descent still far off after one move, or three, is a different picture, not a misfit.
                if stage == 0, iteration == 1 && current.difference > gate * 1.4 || iteration == 3 && current.difference > gate * 1.2 {
                    return nil
                }
                var moved = current
                for move in 0..<16 {
                    var candidate = current.window
                    let sign = move % 2 == 0 ? 1.0 : -1.0
                    switch move / 2 {
                    case 0: candidate.centreX += sign * step.move
                    case 1: candidate.centreY += sign * step.move
                    case 2: candidate.width += sign * step.move
                    case 3: candidate.angle += sign * step.turn
                    default:
                        // Resized with one corner fixed: a crop often takes more off one side
                        // and one end than off all four evenly.
                        let corner = move / 2 - 4, grown = sign * step.move
                        let heightChange = grown * candidate.imageAspect / candidate.shape
                        candidate.width += grown
                        candidate.centreX += (corner % 2 == 0 ? 0.5 : -0.5) * grown
                        candidate.centreY += (corner / 2 == 0 ? 0.5 : -0.5) * heightChange
                    }
                    if let difference = score(candidate), difference < moved.difference { moved = (candidate, difference) }
                }
                if moved.window == current.window { break }
                current = moved
            }
            if stage == 0, current.difference > gate * 1.2 { return nil }
            // Well inside the limit: the finer stages would only polish a fit already made.
            if current.difference <= limit / 2 { break }
        }
        return current.difference <= limit ? current.window : nil
    }
}
