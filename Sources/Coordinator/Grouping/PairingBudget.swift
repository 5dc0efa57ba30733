/// The most candidate pairings a batch of rows keeps, on average a row: through frames, mirror
/// images and crop windows together (`frames`), and through each overlay window (`overlay`);
/// or, when more, its share of `framesFloor` and `overlayFloor` for the whole search, so that
/// a small library is never cut (a photo's dozen edits pair through several windows each:
/// the holdout corpus's 396 files, a budget of 24 a photo alone, lost a crop and recall 0.976
/// → 0.971). A batch that finds more keeps its closest (`BatchedSearch.keepClosest`), so that
/// the candidates, held until judged at 12 bytes each and sorted at 16, stay proportional to
/// the photos however alike they look. Generated graphics (bench/e2e-library.py: a few shapes
/// on a plain ground) pair with hundreds of look-alikes each: 440,000 of them made 68.4
/// million candidates and a peak of 1,498 MiB in the coordinator; within the budget 13.6
/// million and 753 MiB, recall unchanged (0.998). Realistic rows make 4.6 a photo at a
/// million (bench/grouping.sh) and never reach it. The bound: 42 a photo through the default
/// plan's six overlay windows and the rest, or 8 + 6 × 1 million in all if more; 42 million
/// candidates (670 MB while sorted) were a million photos all alike. Where the plan also looks
/// up some windows in other cuts of the frames (`CandidateSearch+Interleaved`), each cut
/// keeps one overlay window's budget more: 48 a photo with the default plan's two.
struct PairingBudget: Sendable, Equatable {
    var frames: Int
    var overlay: Int
    var framesFloor: Int
    var overlayFloor: Int

    static let standard = PairingBudget(frames: 24, overlay: 3, framesFloor: 8_000_000, overlayFloor: 1_000_000)

    /// The most pairings a batch of `rows` of a search over `total` rows keeps through frames,
    /// mirrors and crop windows.
    func framesLimit(rows: Int, of total: Int) -> Int { max(frames * rows, framesFloor * rows / max(1, total)) }

    /// The same through one overlay window.
    func overlayLimit(rows: Int, of total: Int) -> Int { max(overlay * rows, overlayFloor * rows / max(1, total)) }
}
