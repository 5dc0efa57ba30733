import Analysis

/// Which hashes candidate search compares, and how far apart they may be.
///
/// The defaults, and the measurements they come from (which windows a crop or an overlay needs
/// on really analysed photos, bench/window-recall.py; what each costs at a million photos,
/// bench/grouping.sh), are in docs/FEATURES.md, "Candidate search".
struct CandidatePlan: Sendable, Equatable {
    /// Whole frame to whole frame.
    var frameRadius = 10
    /// Windows (indexes into a row's window hashes: `FeatureWindow.crops`, then the straightened
    /// frames) of one photo looked up among the whole frames of the others: a hit means the
    /// other photo is a crop (or a straightened crop) of this one.
    var cropWindows: [Int] = Self.cropWindowsDefault
    /// 10 bits, as for whole frames (8 until the forty-fourth session): a crop that keeps
    /// another share of each side than any window (85% of the width and 90% of the height, a
    /// free crop) lies 8–10 bits from its nearest window more often than not. Of 2,820 crops
    /// drawn anywhere from the corpora's 94 originals (bench/free-crop-recall.py, the geometry
    /// alone), 0.867 of the free ones came within 8 bits of a window, **0.956** within 10 (aspect
    /// locked: 0.938, 0.977), while distinct originals came no closer to each other's windows
    /// (27 of 8,742 ordered pairs within 8 bits, the same 27 within 10). `cull run` on the free
    /// crops: recall 0.812 → 0.854, precision 0.988 → 0.989; the hard set's crops of two sides
    /// all found (recall 0.984 → 1.000). pHash distances are even, so 9 is 8.
    /// Large libraries keep 8 but in their corner windows (`narrowCropRadius`).
    var cropRadius = 10
    /// Where set (`sized(for:)`, past about 320,000 photos: `cropRadiusLargeLibraries`), the
    /// crop radius of every crop window but the `interleavedCropWindows`, which keep
    /// `cropRadius`: those are probed in three cuts of the frames, so a hash 9–10 bits off has
    /// three chances to agree on a whole piece there.
    var narrowCropRadius: Int? = nil

    /// The radius crop window `k` is searched at among the whole frames.
    func cropRadius(ofWindow k: Int) -> Int {
        guard let narrowCropRadius, !interleavedCropWindows.contains(k) else { return cropRadius }
        return narrowCropRadius
    }
    /// Windows compared with the same window of the others: an overlay outside the window.
    var overlayWindows: [Int] = Self.cornerWindows
    var overlayRadius = 8
    /// Pieces of every table (`MultiIndexHash`); nil: chosen for the library size.
    var pieces: Int? = nil
    /// How frame (`framePieceRadius`) and window searches probe the tables: nil finds every
    /// hash within the radius (exact; about 190 probes a query at 8 bits and 4 pieces); k finds
    /// those that also agree within k bits on one whole piece: 17·m probes at k = 1, exact up
    /// to 2m − 1 bits.
    var framePieceRadius: Int? = 1
    var windowPieceRadius: Int? = 1
    /// Crop windows probed at piece radius 0 only (a hit agrees exactly on one whole piece):
    /// three probes a window at 3 pieces instead of 66. Past about 320,000 photos (`sized(for:)`)
    /// the 16 80% windows the plan does not probe at `windowPieceRadius`; of the crops drawn
    /// anywhere that a million photos' tables lost past the probes, 32 of 164 come within reach
    /// through them so (bench/RESULTS.md, "Where free crops are lost in large libraries").
    var cheapCropWindows: [Int] = []
    /// Crop windows also probed, at `windowPieceRadius`, in further tables of the frames cut
    /// into other pieces (`interleavedCuts`, `InterleavedBits`, `CandidateSearch+Interleaved`):
    /// set by `sized(for:)` where the tables have 3 pieces (`interleavedWindowsLargeLibraries`).
    /// Each must be one of `overlayWindows`, which the search's hashes always hold.
    var interleavedCropWindows: [Int] = []
    /// The cuts of the frames the `interleavedCropWindows` are probed in, each a table and a
    /// pass of its own: dealt, then crossed (`InterleavedBits`). The crossed cut (the
    /// forty-eighth session) finds the crops of two sides that lie 8–10 bits off a corner
    /// window and share a piece of neither earlier cut: a million realistic rows' families
    /// (bench/RESULTS.md, "A third cut of the frames").
    var interleavedCuts: [InterleavedBits.Cut] = InterleavedBits.Cut.allCases

    /// Every crop window workers hash: the 25 of 90% and the 25 of 80% (`FeatureWindow.crops`),
    /// the six bands of pipeline 4 (crops of one side, or to another aspect ratio) and
    /// pipeline 6's four straightened frames. Until the thirty-third session only 9 of the 80%
    /// windows were probed, at offsets 0, 10 and 20%, where all the corpora's crops lie; of
    /// crops drawn anywhere (bench/free-crop-recall.py, 2,820 crops of the three corpora's
    /// originals), those keeping 80–85% and 75–80% of a side came within the crop radius of a
    /// probed window 0.62 and 0.38 of the time with the aspect locked, 0.91 and 0.84 with all
    /// 25 (docs/FEATURES.md, "Candidate search").
    static let cropWindowsDefault: [Int] = Array(0..<50) + FeatureWindow.bandWindows + FeatureWindow.straightenedWindows
    /// The crop windows probed in libraries whose tables have 3 pieces (`sized(for:)`): the 25
    /// of 90%, the 9 of 80% at offsets 0, 10 and 20%, the bands and the straightened frames.
    static let cropWindowsLargeLibraries: [Int] = Array(0..<25) + [0, 2, 4].flatMap { row in [0, 2, 4].map { 25 + row * 5 + $0 } }
        + FeatureWindow.bandWindows + FeatureWindow.straightenedWindows

    /// The plan for a search over `rows` photos: where the tables have 3 pieces (past about
    /// 320,000 photos, `MultiIndexHash.pieceCount`) the default plan probes 34 of the 50 crop
    /// windows (44 windows with the bands and straightened frames, not 60). There the 16
    /// others cost a million realistic rows 5 s of search and 3 s of judging (50.9 → 58.9 s,
    /// past the minute's margin), and 3-piece tables probed at radius 1 find hashes exactly to
    /// 5 bits only, where those windows add less (locked 80–85% crops within 5 bits: 0.18 →
    /// 0.38, against 0.62 → 0.91 within 8). They are probed at piece radius 0 instead
    /// (`cheapCropWindows`): free crops at a million photos' tables 0.660 → 0.711 recall, no
    /// cost the million rows' noise shows (bench/RESULTS.md). What they cost in look-alike
    /// pairings is bounded by the `PairingBudget`. The crop radius there is
    /// `cropRadiusLargeLibraries`. A plan of other crop windows, or of pieces chosen by the
    /// caller, is kept.
    func sized(for rows: Int) -> CandidatePlan {
        guard cropWindows == Self.cropWindowsDefault, pieces == nil, MultiIndexHash.pieceCount(for: rows) < 4 else { return self }
        var plan = self
        plan.cropWindows = Self.cropWindowsLargeLibraries
        plan.cheapCropWindows = Self.cropWindowsDefault.filter { !Self.cropWindowsLargeLibraries.contains($0) }
        plan.interleavedCropWindows = Self.interleavedWindowsLargeLibraries
        plan.narrowCropRadius = min(plan.cropRadius, Self.cropRadiusLargeLibraries)
        return plan
    }

    /// The crop radius of libraries whose tables have 3 pieces (`sized(for:)`, as
    /// `narrowCropRadius`: all but the `interleavedWindowsLargeLibraries`). There a probe finds
    /// hashes exactly to 5 bits only, so a crop 9–10 bits from its window is found by chance,
    /// while the look-alikes those bits let through must all be judged: a million realistic rows
    /// took 57.85 s at 10 in every window (judging 26.1 → 34.0 s), past the minute's margin, for
    /// 34 more of 34,170 families; at 10 in the four corners alone, 33 more (33,934 → 33,967) in
    /// 52.59 / 53.92 s against 50.99 / 53.29 s (bench/RESULTS.md, "Crop radius 10").
    static let cropRadiusLargeLibraries = 8

    /// The crop windows probed in the second and third cuts of the frames where the tables have
    /// 3 pieces (`sized(for:)`), at `cropRadius`: the four 90% corner windows, where a crop of
    /// two sides lands, and, since the fiftieth session, the bands without the top or the bottom
    /// 20%, where a crop of one end lands (a 22% cut off the top lies 5–9 bits off window 55,
    /// past what a probe of the first cut finds for sure). The bands in the cuts: a million
    /// realistic rows' families found 34,062 → 34,071, planted copies with their photo
    /// 67,896 → 67,937, the search alone 1.06 times as long (bench/RESULTS.md, "The caption
    /// bands in the cuts"). These are the default `overlayWindows`, which the search's hashes
    /// hold; the other four bands are not held.
    static let interleavedWindowsLargeLibraries: [Int] = cornerWindows

    /// The four 90% windows in the corners (each leaves out a band of 10% along two sides), and
    /// the bands without the top or the bottom 20% (a caption band across one end).
    static let cornerWindows: [Int] = cornerCropWindows + FeatureWindow.captionWindows
    /// The four 90% windows in the corners.
    static let cornerCropWindows: [Int] = [0, 4, 20, 24]
    /// Whether mirror images and bordered copies are looked for (pipeline 4's mirror pHash and
    /// content box), at `frameRadius`.
    var mirrors = true
    var contents = true
    /// Whether copies turned a quarter turn are looked for (each row's turned frame,
    /// `TurnedFrame`, among the frames), at `frameRadius`.
    var turns = true
    /// Whether copies cropped to a square are looked for (each row's centre square,
    /// `CentreSquare`, among the frames), at `frameRadius`.
    var squares = true

    /// Every window the plan reads, in order: the only ones grouping needs to hold.
    var windows: [Int] { Array(Set(probedCropWindows + overlayWindows)).sorted() }

    /// Every crop window a search looks up among the frames: `cropWindows`, then
    /// `cheapCropWindows`. A row's streamed crop windows come in this order.
    var probedCropWindows: [Int] { cropWindows + cheapCropWindows }
}
