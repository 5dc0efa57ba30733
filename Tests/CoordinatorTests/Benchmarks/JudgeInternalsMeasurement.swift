@testable import Coordinator
import Analysis
import Foundation
import GRDB
import Testing

/// A diagnosis, not a test (bench/judge-pairs.sh runs it): what `PairJudge` sees of listed
/// pairs of a database, to find out why two photos were grouped (or not). CULL_BENCH_JUDGE is
/// "DB.sqlite:PAIRS.tsv"; each line of PAIRS.tsv is "LABEL<TAB>PATH_A<TAB>PATH_B" (paths as
/// stored). Writes PAIRS.tsv.out: the label and paths, the judge's relation over every pairing
/// candidate search can make, whether the plain colours differ, the vignette between the whole
/// frames if `RadialGain` finds one (rules 42: the frames' `radialRankShift`, the fall-off, and
/// the frames' difference before and after it is divided out) and the band either frame carries
/// over the other if `OverlayBand` finds one (rules 46), each whole frame's plain colour
/// (Cb,Cr), and for each pairing within its limit: its evidence difference, median hue
/// difference, colour order, largest local change, rank screen, whether the colours disagree,
/// whether they follow no colour edit (`coloursFollowNoEdit`), and the cells off the plain
/// background in either window with `ShapeColours`' comparison (`PairJudge.plainGraphicColours`).
@Suite("Judge internals on listed pairs (diagnosis)", .timeLimit(.minutes(30)))
struct JudgeInternalsMeasurement {
    static let spec = ProcessInfo.processInfo.environment["CULL_BENCH_JUDGE"] ?? ""

    @Test("what the judge sees of each listed pair", .enabled(if: !spec.isEmpty))
    func measure() throws {
        let parts = Self.spec.split(separator: ":").map(String.init)
        try #require(parts.count == 2, "CULL_BENCH_JUDGE must be DB.sqlite:PAIRS.tsv")
        let wanted = try String(contentsOfFile: parts[1], encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: "\t").map(String.init) }.filter { $0.count >= 3 }
        let paths = Set(wanted.flatMap { $0[1...2] })
        let rows = try AnalysedRows.load(DatabaseQueue(path: parts[0])) { paths.contains($0) ? $0 : nil }
        let judge = PairJudge()
        var out = ""
        for line in wanted {
            guard let a = rows[line[1]], let b = rows[line[2]] else { continue }
            var none = LayoutCellCache(capacity: 0)
            // CULL_BENCH_JUDGE_REACH=1: only the pairings whose hashes are within the default
            // plan's radii (what candidate search can return; it may return fewer); =frames:
            // those and the whole frames, as search returns them when the frames' hashes come
            // within reach too (pHash shrugs off a few degrees' turn more often than the layout).
            let reach = ProcessInfo.processInfo.environment["CULL_BENCH_JUDGE_REACH"]
            let frames = Grouper.Pairing(slotA: 0, slotB: 0)
            let pairings = switch reach {
            case "1": AnalysedRows.pairingsWithinReach(a, b)
            case "frames": [frames] + AnalysedRows.pairingsWithinReach(a, b).filter { $0 != frames }
            default: AnalysedRows.pairings(a, b)
            }
            let relation = judge.relation(a, b, pairings: pairings, rows: (0, 1), cache: &none)
            // Grayscale photos have no chroma layout: no plain colour, hue or colour order.
            func hasChroma(_ photo: GroupingPhoto) -> Bool { ChromaLayout.isLayout(photo.chroma) }
            let plain = [a, b].map { photo in
                guard hasChroma(photo) else { return "-" }
                return ChromaLayout.plainColour(PairJudge.chromaCells(photo, 0)).map { String(format: "%.1f,%.1f", $0.cb, $0.cr) } ?? "-"
            }
            // The cells off the plain background in either window (`ColourMask`), and the rule's verdict.
            func shapes(_ pairing: Grouper.Pairing) -> String {
                guard let cellsA = PairJudge.maskCells(a, pairing.slotA), let cellsB = PairJudge.maskCells(b, pairing.slotB),
                      let foreground = ColourMask.foregroundCells(cellsA, cellsB) else { return "-" }
                guard let colours = PairJudge.plainGraphicColours(a, b, pairing, within: .oneEdit) else { return "\(foreground)" }
                switch colours {
                case .mapped(let shapes, let misfit, let shift):
                    return "\(foreground) shapeMisfit=\(misfit.map(String.init) ?? "-")/\(shapes)"
                        + String(format: " shift=%.0f", shift) + " plainVerdict=\(PairJudge.plainGraphicsVerdict(a, b, pairing))"
                case .oneMonochrome(let move):
                    return "\(foreground) oneMonochrome move=\(move.map { String(format: "%.0f", $0) } ?? "-") plainVerdict=\(PairJudge.plainGraphicsVerdict(a, b, pairing))"
                }
            }
            // Straightened frames are not compared as windows (the judge registers from them).
            let confirming = pairings.filter { !PairJudge.throughStraightened($0) }.compactMap { pairing -> String? in
                let cellsA = PairJudge.cells(a, pairing.slotA), cellsB = PairJudge.cells(b, pairing.slotB)
                let difference = LayoutThumbnail.evidenceDifference(cellsA, cellsB)
                guard difference <= judge.limit(pairing) else { return nil }
                var hue = "-", order = "-"
                if hasChroma(a), hasChroma(b) {
                    let chromaA = PairJudge.chromaCells(a, pairing.slotA), chromaB = PairJudge.chromaCells(b, pairing.slotB)
                    hue = ChromaLayout.hueDifference(chromaA, chromaB).map { String(format: "%.0f", $0) } ?? "-"
                    order = ColourOrder.discordance(PairJudge.colourCells(a, pairing.slotA, chroma: chromaA),
                                                    PairJudge.colourCells(b, pairing.slotB, chroma: chromaB)).map { String(format: "%.2f", $0) } ?? "-"
                }
                return "\(pairing.slotA)/\(pairing.slotB) d=" + String(format: "%.3f", difference) + " hue=\(hue) order=\(order)"
                    + String(format: " change=%.3f gain=%.3f screen=%.3f", PairJudge.localChange(a, b, pairing).largestRegion,
                                  PairJudge.regionalGain(a, b, pairing), PairJudge.strongestChange(cellsA, cellsB))
                    + " coloursDisagree=\(PairJudge.coloursDisagree(a, b, pairing)) noEdit=\(PairJudge.coloursFollowNoEdit(a, b, pairing))" + " foreground=\(shapes(pairing))"
            }
            if let dump = ProcessInfo.processInfo.environment["CULL_BENCH_JUDGE_DUMP"] {
                // CULL_BENCH_JUDGE_DUMP=FILE.jsonl: the mask cells (luma, Cb, Cr on `ColourMask`'s grid) and
                // local change at the first confirming pairing whose hues and orders agree, one JSON line a pair.
                for pairing in pairings where !PairJudge.throughStraightened(pairing) {
                    let cellsA = PairJudge.cells(a, pairing.slotA), cellsB = PairJudge.cells(b, pairing.slotB)
                    guard LayoutThumbnail.evidenceDifference(cellsA, cellsB) <= judge.limit(pairing), !PairJudge.coloursDisagree(a, b, pairing),
                          let maskA = PairJudge.maskCells(a, pairing.slotA), let maskB = PairJudge.maskCells(b, pairing.slotB) else { continue }
                    let change = PairJudge.localChange(a, b, pairing, settledBelow: 0)
                    func flat(_ cells: [ColourMask.Cell]) -> String { cells.map { String(format: "%.1f,%.1f,%.1f", $0.luma, $0.cb, $0.cr) }.joined(separator: ",") }
                    // LocalChange's unrotated views (24×24, the first tone-matched) and changed cells.
                    let views = PairJudge.localChangeViews(a, b, pairing)
                    func levels(_ view: [Float]) -> String { view.map { String(format: "%.0f", $0) }.joined(separator: ",") }
                    let changedCells = views.changed.map { $0 ? "1" : "0" }.joined(separator: ",")
                    let record = "{\"label\":\"\(line[0])\",\"a\":\"\(line[1])\",\"b\":\"\(line[2])\",\"slots\":[\(pairing.slotA),\(pairing.slotB)],\"region\":\(change.largestRegion),\"changed\":\(change.changed),\"A\":[\(flat(maskA))],\"B\":[\(flat(maskB))]"
                        + ",\"viewA\":[\(levels(views.a))],\"viewB\":[\(levels(views.b))],\"changedCells\":[\(changedCells)]}\n"
                    if let handle = FileHandle(forWritingAtPath: dump) { handle.seekToEndOfFile(); handle.write(Data(record.utf8)); try? handle.close() }
                    else { _ = FileManager.default.createFile(atPath: dump, contents: Data(record.utf8)) }
                    break
                }
            }
            // The vignette fitted between the whole frames, and their difference with it divided out (rules 42).
            var vignette = "-"
            if let profile = RadialGain.vignette(a.thumbnail, b.thumbnail, side: LayoutThumbnail.side) {
                let before = LayoutThumbnail.evidenceDifference(PairJudge.cells(a, 0), PairJudge.cells(b, 0))
                let after = PairJudge.devignetted(b, against: a).map { LayoutThumbnail.evidenceDifference(PairJudge.cells(a, 0), PairJudge.cells($0, 0)) }
                let shift = PairJudge.radialRankShift(PairJudge.cells(a, 0), PairJudge.cells(b, 0))
                vignette = String(format: "vignette shift=%.2f falloff=%.3f frames %.3f -> ", shift, profile.falloff, before) + (after.map { String(format: "%.3f", $0) } ?? "-")
            }
            // A band either frame carries over the other (rules 46): its rows and the line outside it,
            // and the share of the frames' rank changes in their three most changed rows of cells.
            let bandShare = PairJudge.bandRankShare(PairJudge.cells(a, 0), PairJudge.cells(b, 0))
            for (name, photo, copy) in [("in B", a, b), ("in A", b, a)] {
                guard let band = OverlayBand.find(photo: photo.thumbnail, copy: copy.thumbnail, side: LayoutThumbnail.side) else { continue }
                vignette += "; band \(name) " + String(format: "rows %d..<%d outside %.2f·x%+.1f (rank share %.2f)",
                                                       band.rows.lowerBound, band.rows.upperBound, band.gain, band.offset, bandShare)
            }
            out += ([line[0], line[1], line[2], relation.map { "\($0)" } ?? "none", "\(PairJudge.plainColoursDiffer(a, b))", vignette] + plain
                    + [confirming.joined(separator: "; "), registration(a, b, pairings, judge)]).joined(separator: "\t") + "\n"
        }
        try out.write(toFile: parts[1] + ".out", atomically: true, encoding: .utf8)
        print("judge internals: \(wanted.count) pairs listed, written to \(parts[1]).out")
    }

    /// What registration (rules 20) makes of the pair: the pairings' verdict, the best pairing,
    /// and for each start the registered window and the registered part's change measures.
    private func registration(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairings: [Grouper.Pairing], _ judge: PairJudge) -> String {
        var none = LayoutCellCache(capacity: 0), best: PairJudge.BestPairing?
        let direct = judge.directRelation(a, b, pairings: pairings, rows: (0, 1), cache: &none, best: &best)
        guard let best else { return "direct=\(direct.map { "\($0)" } ?? "none")" }
        var text = "direct=\(direct.map { "\($0)" } ?? "none") best=\(best.pairing.slotA)/\(best.pairing.slotB) d=" + String(format: "%.3f", best.difference)
        // CULL_BENCH_JUDGE_WINDOW=x,y,width,height: where the second photo's frame truly lies in
        // the first (a crop of known geometry), and how far it is from there as the judge's
        // registered part (`PairJudge.part`), as exact area averages of the first's plane, and as
        // the descent's point samples, 4 and 8 a cell a side (`PairJudge.fineSamples`).
        if let geometry = ProcessInfo.processInfo.environment["CULL_BENCH_JUDGE_WINDOW"]?.split(separator: ",").compactMap({ Double($0) }),
           geometry.count == 4 {
            let (x, y, width, height) = (geometry[0], geometry[1], geometry[2], geometry[3])
            let window = TurnedWindow(centreX: x + width / 2, centreY: y + height / 2, width: width, angle: 0,
                                      imageAspect: Double(a.width) / Double(a.height), shape: Double(b.width) / Double(b.height))
            let target = LayoutThumbnail.RankedCells(PairJudge.cells(b, 0))
            func difference(_ cells: [Float]) -> Float { LayoutThumbnail.evidenceDifference(LayoutThumbnail.RankedCells(cells), target) }
            let (plane, side) = a.comparedPlane
            let sampled = [4, 8].map { difference(LayoutThumbnail.ranks(window.resampled(plane[...], side: side, columns: 12, rows: 12, samples: $0))) }
            text += String(format: "; at the true window: part %.3f, area %.3f, sampled %.3f (4) %.3f (8)",
                           difference(PairJudge.cells(PairJudge.part(of: a, under: window), 0)),
                           difference(LayoutThumbnail.cells(ofPlane: plane, side: side, in: FeatureWindow(x: x, y: y, width: width, height: height))),
                           sampled[0], sampled[1])
        }
        for (original, copy) in [(a, b), (b, a)] {
            let start = best.pairing.slotA == 0 && best.pairing.slotB == 0 ? FeatureWindow(x: 0.04, y: 0.04, width: 0.92, height: 0.92)
                : best.pairing.slotB == 0 && original.id == a.id && best.pairing.slotA <= FeatureWindow.crops.count ? FeatureWindow.crops[max(0, best.pairing.slotA - 1)]
                : best.pairing.slotA == 0 && original.id == b.id && best.pairing.slotB <= FeatureWindow.crops.count ? FeatureWindow.crops[max(0, best.pairing.slotB - 1)] : nil
            guard let start else { continue }
            // What the judge's own registration makes of it, within its limit (the gates on the descent apply).
            let within = judge.registrationLimit(best)
            let gatedAtLimit = PairJudge.register(copy, in: original, from: .crop(start), limit: within)
            let gated = PairJudge.register(copy, in: original, from: .crop(start), limit: within,
                                           gatedAt: min(judge.windowConfirmation, within * PairJudge.registrationGateWidening))
            text += String(format: "; judge within %.3f: ", within) + (gated.map { String(format: "w=%.3f", $0.width) } ?? "no fit")
                + " (gated at the limit: " + (gatedAtLimit.map { String(format: "w=%.3f", $0.width) } ?? "no fit") + ")"
            guard let window = PairJudge.register(copy, in: original, from: .crop(start), limit: 1) else { continue }
            let part = PairJudge.part(of: original, under: window)
            var strict = judge, ignored: PairJudge.BestPairing?, noCache = LayoutCellCache(capacity: 0)
            strict.frameConfirmation = judge.windowConfirmation
            let verdict = strict.directRelation(part, copy, pairings: [Grouper.Pairing(slotA: 0, slotB: 0)], rows: (0, 1), cache: &noCache, best: &ignored)
            let d = LayoutThumbnail.evidenceDifference(PairJudge.cells(part, 0), PairJudge.cells(copy, 0))
            let pairing = Grouper.Pairing(slotA: 0, slotB: 0)
            text += String(format: "; in %@: c=%.3f,%.3f w=%.3f angle=%.1f d=%.3f change=%.3f gain=%.3f", original.id == a.id ? "A" : "B",
                           window.centreX, window.centreY, window.width, window.angle * 180 / Double.pi, d,
                           PairJudge.localChange(part, copy, pairing).largestRegion, PairJudge.regionalGain(part, copy, pairing))
            let parallax = Parallax.spread(part.thumbnail, copy.thumbnail, side: LayoutThumbnail.side)
            text += " parallax=" + (parallax.map { String(format: "%.2f", $0) } ?? "-")
            text += " verdict=\(verdict.map { "\($0)" } ?? "none") disagree=\(PairJudge.coloursDisagree(part, copy, pairing))"
                + " noEdit=\(PairJudge.coloursFollowNoEdit(part, copy, pairing)) plain=\(PairJudge.isPlainGraphic(a))/\(PairJudge.isPlainGraphic(b))"
        }
        return text
    }
}
