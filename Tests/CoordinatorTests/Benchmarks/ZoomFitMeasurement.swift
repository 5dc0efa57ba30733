@testable import Coordinator
import Analysis
import Foundation
import GRDB
import Testing

/// A diagnosis, not a test: what the zoom fit of rules 22 (`PairJudge.zoomDifferences`) gives
/// on the pairs of files of one pixel size in corpora that `cull run` analysed, by kind: two
/// files of one picture (the truth's group; edits at the original's size), a hard-set zoomed
/// burst frame against its original, other pairs of one scene. CULL_BENCH_ZOOM is
/// "DB.sqlite:CORPUS_DIR[;DB.sqlite:CORPUS_DIR…]" (CORPUS_DIR holds truth.csv). Prints per
/// kind how many pairs the fit takes for a zoom and the lowest ratios (zoomed over unzoomed
/// difference, among zooms at least `zoomMargin` better). bench/RESULTS.md, "Zoomed shots".
@Suite("Zoom fit on analysed corpora (diagnosis)", .timeLimit(.minutes(10)))
struct ZoomFitMeasurement {
    static let spec = ProcessInfo.processInfo.environment["CULL_BENCH_ZOOM"] ?? ""

    @Test("the zoom fit on pairs of files of one size", .enabled(if: !spec.isEmpty))
    func measure() throws {
        var ratios: [String: [(ratio: Float, label: String)]] = [:], pairs: [String: Int] = [:], fits: [String: Int] = [:]
        for part in Self.spec.split(separator: ";") {
            let paths = part.split(separator: ":").map(String.init)
            try #require(paths.count == 2, "CULL_BENCH_ZOOM must be DB.sqlite:CORPUS_DIR[;…]")
            let corpus = paths[1]
            var group: [String: String] = [:], edit: [String: String] = [:]
            for line in try String(contentsOfFile: corpus + "/truth.csv", encoding: .utf8).split(whereSeparator: \.isNewline).dropFirst() {
                let fields = line.split(separator: ",").map(String.init)
                guard fields.count >= 3 else { continue }
                group[corpus + "/" + fields[0]] = fields[1]
                edit[corpus + "/" + fields[0]] = fields[2]
            }
            let rows = try AnalysedRows.load(DatabaseQueue(path: paths[0])) { group[$0] == nil ? nil : $0 }
            // Pairs within one scene (the truth's group up to "#", where negatives are named).
            let scenes = Dictionary(grouping: rows.keys.sorted()) { String(group[$0]!.split(separator: "#")[0]) }
            for files in scenes.values {
                for (index, x) in files.enumerated() {
                    for y in files[(index + 1)...] {
                        let a = rows[x]!, b = rows[y]!
                        guard PairJudge.sameSize(a, b) else { continue }
                        let edits = [edit[x]!, edit[y]!]
                        let kind = group[x] == group[y] ? "one picture"
                            : edits.contains("burst_zoom") && edits.contains("original") ? "zoomed burst frame and its original" : "other shots of one scene"
                        let differences = PairJudge.zoomDifferences(a, b, mirroredA: false, framesA: .init(PairJudge.cells(a, 0)),
                                                                    framesB: .init(PairJudge.cells(b, 0)))
                        pairs[kind, default: 0] += 1
                        if differences.contains(where: PairJudge().zoomFits) { fits[kind, default: 0] += 1 }
                        let improving = differences.filter { $0.unzoomed - $0.zoomed >= PairJudge.zoomMargin }
                        if let best = improving.map({ $0.zoomed / $0.unzoomed }).min() {
                            ratios[kind, default: []].append((best, "\((corpus as NSString).lastPathComponent) \(group[x]!) \(edits.joined(separator: "/"))"))
                        }
                    }
                }
            }
        }
        for (kind, count) in pairs.sorted(by: { $0.key < $1.key }) {
            let lowest = (ratios[kind] ?? []).sorted { $0.ratio < $1.ratio }.prefix(6)
            print("zoom fit: \(kind): \(count) pairs, \(fits[kind] ?? 0) taken for a zoom; lowest ratios: "
                  + lowest.map { String(format: "%.2f", $0.ratio) + " (\($0.label))" }.joined(separator: ", "))
        }
    }
}
