@testable import Coordinator
import Analysis
import Foundation
import Shared
import Testing

/// A measurement, not a test: the photos of corpora that `cull run` analysed, grouped as a
/// library of `CULL_BENCH_AS_IF_ROWS` photos (default a million) would group them: that size's
/// candidate plan (`CandidatePlan.sized(for:)`: its crop windows, cheap windows, second cut
/// and radii) and its tables' pieces. A corpus's own run uses the plan of its few hundred
/// photos, which probes every window exactly to more bits; this says what a photographer's
/// edits lose to the search in a large library. CULL_BENCH_AS_IF is "DB.sqlite:OUT.csv[;…]":
/// each database's last finished scan is grouped and its duplicate groups written to OUT.csv
/// (group, kind, path, keeper, distance: what `../shared/corpus/score.py` reads).
/// bench/RESULTS.md, "Free crops in a large library's search".
@Suite("Corpora grouped with a large library's plan (measurement)", .serialized, .timeLimit(.minutes(10)))
struct LargeLibraryPlanMeasurement {
    static let environment = ProcessInfo.processInfo.environment
    static let spec = environment["CULL_BENCH_AS_IF"] ?? ""
    static let rows = Int(environment["CULL_BENCH_AS_IF_ROWS"] ?? "") ?? 1_000_000

    @Test("duplicate groups of analysed corpora with a large library's plan", .enabled(if: !spec.isEmpty))
    func groupAsIfLarge() async throws {
        var grouper = Grouper()
        grouper.plan = Self.plan(asIf: Self.rows)
        for part in Self.spec.split(separator: ";") {
            let paths = part.split(separator: ":").map(String.init)
            try #require(paths.count == 2, "CULL_BENCH_AS_IF must be DB.sqlite:OUT.csv[;…]")
            let store = try await CullStore.open(path: paths[0], on: BlockingQueue(label: "as-if", limit: 1))
            let scan = try #require(try await store.latestDoneScan(), "\(paths[0]) has no finished scan")
            let (photos, features) = try await store.groupingInput(scan: scan)
            let groups = try grouper.groups(of: photos, features: features, shouldStop: { false })
            let pathOf = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0.path) })
            var lines = ["group,kind,path,keeper,distance"]
            for (index, group) in groups.enumerated() where group.kind != .similar {
                for member in group.members {
                    lines.append("\(index),\(group.kind.rawValue),\(pathOf[member.photoID] ?? ""),\(member.photoID == group.keeper ? 1 : 0),\(member.distance)")
                }
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: paths[1], atomically: true, encoding: .utf8)
            print("as if \(Self.rows) photos: \(paths[0]): \(photos.count) photos, \(groups.count) groups → \(paths[1])")
        }
    }

    /// The plan `Grouper` takes for a library of `rows` photos, with those rows' pieces fixed:
    /// `sized(for:)` keeps it at the corpus's own size.
    static func plan(asIf rows: Int) -> CandidatePlan {
        var plan = CandidatePlan().sized(for: rows)
        plan.pieces = MultiIndexHash.pieceCount(for: rows)
        return plan
    }
}
