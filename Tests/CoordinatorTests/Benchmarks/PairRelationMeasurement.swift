@testable import Coordinator
import Analysis
import Foundation
import GRDB
import Testing

/// A measurement, not a test (bench/pair-relations.sh runs it): what `PairJudge` sees of real
/// pairs, so that its thresholds rest on numbers. For each corpus of CULL_BENCH_RELATIONS
/// ("CORPUS_DIR:DB.sqlite,…", the database of `cull run CORPUS_DIR/photos`), every (original,
/// edited copy) pair of truth.csv and every negative (a similar shot or a look-alike, paired with
/// its scene's original) is looked at on every pairing candidate search can make (whole frames,
/// a crop window against the other's frame either way, the same overlay window of both). The
/// pairing that confirms most easily (difference over its limit, smallest) is reported: its
/// difference and how many interior cells changed, per edit.
@Suite("Pair relations on real corpora (measurement)", .timeLimit(.minutes(30)))
struct PairRelationMeasurement {
    static let specs: [String] = (ProcessInfo.processInfo.environment["CULL_BENCH_RELATIONS"] ?? "").split(separator: ",").map(String.init)

    struct Row {
        var path: String
        var photo: GroupingPhoto
    }

    @Test("pairings of real edits and negatives", .enabled(if: !specs.isEmpty), arguments: specs)
    func measure(spec: String) throws {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        let corpus = parts[0], database = try DatabaseQueue(path: parts[1])
        let truth = try Self.truth(corpus)
        let rows = try AnalysedRows.load(database) { String($0.dropFirst(corpus.count + 1)) }
        // Originals by truth group; a negative's scene is its group before "#".
        var originalOf: [String: String] = [:]
        for (path, entry) in truth where entry.transform == "original" { originalOf[entry.group] = path }
        var byEdit: [String: [Relation]] = [:]
        for (path, entry) in truth where entry.transform != "original" {
            let negative = originalOf[entry.group] == nil
            let scene = negative ? String(entry.group.split(separator: "#").first ?? "") : entry.group
            guard let originalPath = originalOf[scene], let a = rows[originalPath], let b = rows[path],
                  a.thumbnail.count == 1024, b.thumbnail.count == 1024 else { continue }
            byEdit[entry.transform, default: []].append(Self.easiestPairing(a, b, negative: negative))
        }
        print("relations \(corpus): interior = the \(LayoutThumbnail.comparisonSide - 2 * PairJudge.border)² cells inside a \(PairJudge.border)-cell band; changed at levels 0.15/0.2/0.25/0.3")
        for (edit, pairs) in byEdit.sorted(by: { $0.key < $1.key }) {
            let confirmable = pairs.filter { $0.difference <= $0.limit }
            let asSimilar = confirmable.filter { $0.changed[2] > PairJudge.localChangeCells }.count
            // Per level: the largest count, and how many pairs changed more than the judge allows.
            let counts = (0..<4).map { level -> String in
                let counts = confirmable.map { $0.changed[level] }
                return "\(counts.max() ?? 0) max, \(counts.filter { $0 > PairJudge.localChangeCells }.count) over"
            }.joined(separator: " | ")
            let patches = confirmable.map(\.patch).sorted().map { String(format: "%.2f", $0) }.joined(separator: " ")
            let aligned = confirmable.map(\.aligned).sorted().map { String(format: "%.2f", $0) }.joined(separator: " ")
            let kind = pairs.first?.negative == true ? " (negative)" : ""
            print("relations \(corpus) \(edit)\(kind): \(pairs.count) pairs, \(confirmable.count) within the limit (difference median "
                  + String(format: "%.3f", Self.median(pairs.map(\.difference))) + "), \(asSimilar) of those similar by local change; "
                  + "changed interior cells at 0.15 | 0.2 | 0.25 | 0.3: \(counts); strongest 3x3 patch: \(patches); aligned: \(aligned)")
            let blobs = confirmable.map { String(format: "%.2f/%.2f", $0.blob, $0.concentration) }.sorted().joined(separator: " ")
            print("relations \(corpus) \(edit)\(kind): strongest 4x4 blob after alignment, mean/share of all change: \(blobs)")
            let regions = confirmable.map(\.localRegion).sorted()
            let changes = regions.filter { $0 >= LocalChange.sceneChangeShare }.count
            let screened = confirmable.filter { $0.screen < PairJudge.unchangedRanks }.count
            print("relations \(corpus) \(edit)\(kind): local change (the judge's rule): \(changes) of \(confirmable.count) confirmable pairs "
                  + "a change of the scene (largest region ≥ \(LocalChange.sceneChangeShare)), \(screened) spared by the rank screen; largest regions: "
                  + regions.map { String(format: "%.3f", $0) }.joined(separator: " "))
            let orders = confirmable.compactMap(\.colourOrder).sorted()
            print("relations \(corpus) \(edit)\(kind): colour order (ColourOrder.discordance at the judge's pairing; \(confirmable.count - orders.count) without a say): "
                  + orders.map { String(format: "%.3f", $0) }.joined(separator: " "))
        }
    }

    struct Relation {
        var difference: Float
        var limit: Float
        var changed: [Int]
        var patch: Float
        var aligned: Float = 0
        var negative: Bool
        /// After alignment: the mean change of the most changed 4×4 block, and its share of all change.
        var blob: Float = 0
        var concentration: Float = 0
        /// What the judge decides on: `LocalChange`'s largest region at the pairing, and the
        /// rank screen (`PairJudge.strongestChange`) that spares it.
        var localRegion: Double = 0
        var screen: Float = 0
        /// `ColourOrder.discordance` at the judge's pairing (nil: a photo nearly gray).
        var colourOrder: Float?
    }

    /// The pairing with the smallest difference relative to its limit.
    static func easiestPairing(_ a: GroupingPhoto, _ b: GroupingPhoto, negative: Bool) -> Relation {
        let judge = PairJudge()
        var best: Relation?
        var bestPairing = Grouper.Pairing(slotA: 0, slotB: 0)
        // The judge's own choice: the pairing whose evidence difference is least for its limit.
        var aligned: (pairing: Grouper.Pairing, ratio: Float)?
        for pairing in AnalysedRows.pairings(a, b) {
            let (slotA, slotB) = (pairing.slotA, pairing.slotB)
            let cellsA = PairJudge.cells(a, slotA), cellsB = PairJudge.cells(b, slotB)
            let ratio = LayoutThumbnail.evidenceDifference(cellsA, cellsB) / judge.limit(pairing)
            if aligned.map({ ratio < $0.ratio }) ?? true { aligned = (pairing, ratio) }
            let difference = LayoutThumbnail.difference(cellsA, cellsB)
            let whole: Set = [0, Int(Candidate.mirrorSlot)]
            let limit = whole.contains(slotA) && whole.contains(slotB) ? judge.frameConfirmation : judge.windowConfirmation
            if best.map({ difference / limit < $0.difference / $0.limit }) ?? true {
                let changed = [Float(0.15), 0.2, 0.25, 0.3].map { PairJudge.changedInterior(cellsA, cellsB, level: $0) }
                best = Relation(difference: difference, limit: limit, changed: changed, patch: PairJudge.strongestPatch(cellsA, cellsB), negative: negative)
                bestPairing = pairing
            }
        }
        let (alignedA, alignedB) = PairJudge.alignedCells(a, b, bestPairing)
        best!.aligned = PairJudge.strongestPatch(alignedA, alignedB)
        (best!.blob, best!.concentration) = PairJudge.strongestBlob(alignedA, alignedB)
        let judged = aligned!.pairing
        best!.localRegion = PairJudge.localChange(a, b, judged).largestRegion
        best!.screen = PairJudge.strongestChange(PairJudge.cells(a, judged.slotA), PairJudge.cells(b, judged.slotB))
        if ChromaLayout.isLayout(a.chroma), ChromaLayout.isLayout(b.chroma) {
            let chromaA = PairJudge.chromaCells(a, judged.slotA), chromaB = PairJudge.chromaCells(b, judged.slotB)
            best!.colourOrder = ColourOrder.discordance(PairJudge.colourCells(a, judged.slotA, chroma: chromaA),
                                                        PairJudge.colourCells(b, judged.slotB, chroma: chromaB))
        }
        return best!
    }

    static func truth(_ corpus: String) throws -> [String: (group: String, transform: String)] {
        let text = try String(contentsOfFile: corpus + "/truth.csv", encoding: .utf8)
        var truth: [String: (group: String, transform: String)] = [:]
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {  // csv writes CRLF
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { continue }
            truth[fields[0]] = (fields[1], fields[2])
        }
        return truth
    }

    static func median(_ values: [Float]) -> Float { values.isEmpty ? .nan : values.sorted()[values.count / 2] }
}

/// Statistics of what differs between two aligned windows, measured here to see whether they
/// tell another shot (a moved subject) from an edit (a crop, an overlay). These rank-based ones
/// do not, on 12×12 cells of a 32×32 thumbnail (docs/FEATURES.md); the judge uses `LocalChange`
/// (gray levels, tone-matched, misfit-tolerant), which the measurement prints beside them.
extension PairJudge {
    /// The border band (cells per side) where edits put overlays; the rest is the interior.
    static let border = 2
    static let localChangeCells = 6

    /// How many cells of the interior (all but `border` cells along each side) differ by more
    /// than `level` in rank.
    static func changedInterior(_ a: [Float], _ b: [Float], level: Float) -> Int {
        let n = LayoutThumbnail.comparisonSide
        var changed = 0
        for row in border..<(n - border) {
            for column in border..<(n - border) where abs(a[row * n + column] - b[row * n + column]) > level {
                changed += 1
            }
        }
        return changed
    }

    /// The mean rank change of the most changed 3×3 patch of cells centred in the interior: a
    /// subject that moved or was lit differently changes a compact patch a lot, while a crop's
    /// or rotation's imperfect alignment spreads small changes along edges.
    static func strongestPatch(_ a: [Float], _ b: [Float]) -> Float {
        let n = LayoutThumbnail.comparisonSide
        var strongest: Float = 0
        for row in border..<(n - border) {
            for column in border..<(n - border) {
                var sum: Float = 0
                for dy in -1...1 { for dx in -1...1 { sum += abs(a[(row + dy) * n + column + dx] - b[(row + dy) * n + column + dx]) } }
                strongest = max(strongest, sum / 9)
            }
        }
        return strongest
    }

    /// The strongest patch once the pairing is aligned more finely than the fixed windows
    /// allow. A crop of another shape (22% off one side), a small rotation or an offset between
    /// two grid steps leaves the best fixed window a little off, and the misfit shows as
    /// patches of change along edges; a moved subject stays changed however well the frames
    /// are aligned. So the windowed side's window (A's for two whole frames) is moved and
    /// resized, each side on its own, by coordinate descent on `LayoutThumbnail.difference`
    /// (steps of 2% down to 0.5% of the frame; about 50 comparisons), and the patch is
    /// measured where the difference is least.
    static func alignedCells(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Grouper.Pairing) -> ([Float], [Float]) {
        let refineA = pairing.slotA != 0 || pairing.slotB == 0
        let (moving, fixed) = refineA ? (a, b) : (b, a)
        let (movingSlot, fixedSlot) = refineA ? (pairing.slotA, pairing.slotB) : (pairing.slotB, pairing.slotA)
        let target = cells(fixed, fixedSlot)
        // Mirror and content slots are refined from the whole frame (of the mirrored thumbnail).
        let sampler = LayoutThumbnail.sampler(movingSlot == Int(Candidate.mirrorSlot) ? LayoutThumbnail.mirrored(moving.thumbnail) : moving.thumbnail)
        var window = switch movingSlot {
        case 0, Int(Candidate.mirrorSlot): FeatureWindow.full
        case Int(Candidate.contentSlot): moving.contentBox ?? .full
        default: FeatureWindow.crops[movingSlot - 1]
        }
        var cellsHere = LayoutThumbnail.cells(of: sampler, in: window)
        var best = LayoutThumbnail.difference(cellsHere, target)
        var step = 0.02
        while step >= 0.005 {
            var improved = false
            for parameter in 0..<4 {
                for sign in [-1.0, 1.0] {
                    var trial = window
                    switch parameter {
                    case 0: trial.x += sign * step
                    case 1: trial.y += sign * step
                    case 2: trial.width += sign * step
                    default: trial.height += sign * step
                    }
                    guard trial.x >= 0, trial.y >= 0, trial.width >= 0.5, trial.height >= 0.5,
                          trial.x + trial.width <= 1, trial.y + trial.height <= 1 else { continue }
                    let trialCells = LayoutThumbnail.cells(of: sampler, in: trial)
                    let difference = LayoutThumbnail.difference(trialCells, target)
                    if difference < best {
                        (best, window, cellsHere, improved) = (difference, trial, trialCells, true)
                    }
                }
            }
            if !improved { step /= 2 }
        }
        return (cellsHere, target)
    }

    /// The most changed 4×4 block of cells anywhere: its mean change, and its share of the
    /// change over all cells. A moved subject puts most of the change in one block; a crop's
    /// or rotation's misfit spreads it over the frame.
    static func strongestBlob(_ a: [Float], _ b: [Float]) -> (mean: Float, share: Float) {
        let n = LayoutThumbnail.comparisonSide
        let change = zip(a, b).map { abs($0 - $1) }
        let total = change.reduce(0, +)
        var strongest: Float = 0
        for row in 0...(n - 4) {
            for column in 0...(n - 4) {
                var sum: Float = 0
                for dy in 0..<4 { for dx in 0..<4 { sum += change[(row + dy) * n + column + dx] } }
                strongest = max(strongest, sum)
            }
        }
        return (strongest / 16, total > 0 ? strongest / total : 0)
    }

}
