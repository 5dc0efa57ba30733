@testable import Coordinator
import Analysis
import Foundation
import Testing

/// A benchmark, not a test: the whole `Grouper` (candidate search, judging every candidate on
/// the thumbnails, clustering) on realistic rows (`RealisticLibrary`), as bench/grouping.sh
/// runs it in a release build. Skipped unless CULL_BENCH_GROUPING names the photo counts and
/// CULL_FEATURE_MODEL the model file. The rows are light, as the store's are, and the
/// window hashes and layouts come through a `GroupingFeatureSource` that works them out from
/// the library's recipes when asked (as the store reads them from SQLite); with their real
/// chroma layouts unless CULL_BENCH_CHROMA=0. Prints the time,
/// the peak RSS and how many planted copies ended in their photo's group. CULL_BENCH_ROUNDS=N
/// groups the same rows N times in turn and prints each round's time and their median (this
/// machine's noise moves one run by 10–15%); the groups printed are the last round's.
@Suite("Grouping at library scale (benchmark)", .serialized, .timeLimit(.minutes(30)))
struct GroupingScaleBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let sizes: [Int] = (environment["CULL_BENCH_GROUPING"] ?? "").split(separator: ",").compactMap { Int($0) }

    /// Features of a generated library, worked out per request (ids are row numbers).
    struct GeneratedFeatures: GroupingFeatureSource {
        let library: RealisticLibrary

        func candidateHashes(of ids: [Int64], plan: CandidatePlan, holdingCropWindows: Bool) throws -> CompactHashes {
            library.compactHashes(plan: plan, rows: ids.map { Int($0) }, holdingCropWindows: holdingCropWindows)
        }

        func cropWindows(of ids: ArraySlice<Int64>, plan: CandidatePlan) throws -> [UInt64] {
            let probed = plan.probedCropWindows
            return ids.flatMap { id in probed.map { library.hash(Int(id), slot: $0 + 1) } }
        }

        func layouts(of ids: [Int64]) throws -> [Int64: PhotoLayout] {
            Dictionary(uniqueKeysWithValues: ids.map { ($0, PhotoLayout(thumbnail: library.thumbnail(Int($0)), chroma: library.chroma(Int($0)),
                                                                 detail: library.detail(Int($0)))) })
        }

        func windowHashes(of ids: [Int64]) throws -> [Int64: [UInt64]] {
            Dictionary(uniqueKeysWithValues: ids.map { ($0, library.windows(Int($0))) })
        }
    }

    @Test("group N realistic photos", .enabled(if: !sizes.isEmpty), arguments: sizes)
    func scale(count: Int) throws {
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        var library = RealisticLibrary.generate(count: count, model: model, disguise: Self.environment["CULL_BENCH_DISGUISE"] == "tone" ? .toneMaps : .byFamily)
        // CULL_BENCH_CHROMA=0: rows without colour, as the benchmark's rows were before.
        library.withChroma = Self.environment["CULL_BENCH_CHROMA"] != "0"
        // CULL_BENCH_HUES=0: every row in its source's colours, as before the twenty-fifth session.
        if Self.environment["CULL_BENCH_HUES"] != "0" { library.turnHues() }
        let photos = (0..<count).map(library.lightPhoto)
        let rss = CandidateSearchBenchmark.peakRSS()
        let clock = ContinuousClock()
        var groups: [PhotoGroup] = []
        let features = GeneratedFeatures(library: library)
        let grouper = Self.grouper()
        var rounds: [(seconds: Double, steps: [(step: GroupingProgress.Step, seconds: Double)])] = []
        for _ in 0..<Self.rounds {
            let progress = GroupingProgress()  // each round's steps from its start
            let steps = StepTimer(progress)
            let elapsed = try clock.measure { groups = try grouper.groups(of: photos, features: features, progress: progress, shouldStop: { false }) }
            rounds.append((Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, steps.stop()))
        }
        // The median round (the lower middle of an even count) stands for the run.
        let median = rounds.sorted { $0.seconds < $1.seconds }[(rounds.count - 1) / 2]
        let (seconds, stepTimes) = median
        if rounds.count > 1 {
            print("grouping \(count) photos: \(rounds.count) rounds: " + rounds.map { String(format: "%.2f", $0.seconds) }.joined(separator: ", ")
                  + " s; median \(String(format: "%.2f", seconds)) s (the figures below are the median round's time and steps, the last round's groups)")
        }
        var groupOf: [Int64: Int] = [:]
        for (index, group) in groups.enumerated() where group.kind != .similar { for member in group.members { groupOf[member.photoID] = index } }
        let planted = (0..<count).filter { library.copyOf[$0] >= 0 }
        let together = planted.filter { row in groupOf[Int64(row)].map { $0 == groupOf[Int64(library.copyOf[row])] } ?? false }.count
        print("grouping \(count) photos: \(String(format: "%.2f", seconds)) s, \(String(format: "%.0f", Double(count) / seconds)) photos/s, "
              + "\(groups.count) groups; peak RSS \(rss) MiB before grouping (the light rows and the library's recipes), "
              + "\(CandidateSearchBenchmark.peakRSS()) MiB after; planted copies grouped with their photo: \(together)/\(planted.count)")
        // A planted family (a photo and its one to three copies) is found when a copy shares the
        // photo's group; families whose every copy does are found whole.
        var families: [Int32: (found: Bool, whole: Bool)] = [:]
        for row in planted {
            let original = library.copyOf[row], with = groupOf[Int64(row)].map { $0 == groupOf[Int64(original)] } ?? false
            let family = families[original] ?? (false, true)
            families[original] = (family.found || with, family.whole && with)
        }
        print("grouping \(count) photos: planted families found (a copy in the photo's group): \(families.values.filter(\.found).count)/\(families.count), "
              + "found whole: \(families.values.filter(\.whole).count)")
        print("grouping \(count) photos: " + Self.reach(library, planted: planted, plan: grouper.planWithThreshold.sized(for: library.count)))
        // Groups joining rows of different photos (not a photo, its copies and its burst shots).
        var mixed = 0, strays = 0
        for group in groups where group.kind != .similar {
            let roots = group.members.map { library.family(Int($0.photoID)) }
            let largest = Dictionary(grouping: roots, by: { $0 }).values.map(\.count).max() ?? 0
            if largest < roots.count { mixed += 1; strays += roots.count - largest }
        }
        print("grouping \(count) photos: duplicate groups joining rows of different photos: \(mixed), rows outside their group's photo: \(strays)")
        // Burst shots are other shots of their moment: in a duplicate group with their first
        // shot, they were taken for copies (the families above do not count that as mixing).
        let bursts = (0..<count).filter { library.burstOf[$0] >= 0 }
        let burstsAsCopies = bursts.filter { row in groupOf[Int64(row)].map { $0 == groupOf[Int64(library.burstOf[row])] } ?? false }.count
        print("grouping \(count) photos: burst shots in a duplicate group with their first shot: \(burstsAsCopies)/\(bursts.count)")
        print("grouping \(count) photos, seconds per step: " + stepTimes.map { "\($0.step.name) \(String(format: "%.2f", $0.seconds))" }.joined(separator: ", "))
        // Per edit: planted copies grouped with their photo, and how many went to a similar group.
        var similarOf: Set<Int64> = []
        for group in groups where group.kind == .similar { for member in group.members { similarOf.insert(member.photoID) } }
        var byEdit: [String: (together: Int, similar: Int, all: Int)] = [:]
        for row in planted {
            let name = model.transforms[Int(library.edit[row])]
            var entry = byEdit[name] ?? (0, 0, 0)
            entry.all += 1
            if groupOf[Int64(row)].map({ $0 == groupOf[Int64(library.copyOf[row])] }) ?? false { entry.together += 1 }
            if similarOf.contains(Int64(row)) { entry.similar += 1 }
            byEdit[name] = entry
        }
        print("grouping \(count) photos, planted copies per edit (with their photo / in a similar group / all): "
              + byEdit.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.together)/\($0.value.similar)/\($0.value.all)" }.joined(separator: ", "))
        #expect(together > 0)
    }

    /// How many times each size is grouped (CULL_BENCH_ROUNDS, at least 1).
    static let rounds = max(1, Int(environment["CULL_BENCH_ROUNDS"] ?? "") ?? 1)

    /// The grouper measured: the default one, or with CULL_BENCH_PIECE_RADIUS=k its search
    /// probing frames and windows at piece radius k (`CandidatePlan.framePieceRadius`; 2 at 3
    /// pieces finds every hash within 8 bits, the crop radius); with CULL_BENCH_TURNS=0 without
    /// looking for turned copies (`CandidatePlan.turns`: what they cost); with CULL_BENCH_SQUARES=0
    /// without looking for square crops (`CandidatePlan.squares`).
    static func grouper() -> Grouper {
        var grouper = Grouper()
        if let radius = environment["CULL_BENCH_PIECE_RADIUS"].flatMap({ Int($0) }) {
            grouper.plan.framePieceRadius = radius
            grouper.plan.windowPieceRadius = radius
        }
        if environment["CULL_BENCH_TURNS"] == "0" { grouper.plan.turns = false }
        if environment["CULL_BENCH_SQUARES"] == "0" { grouper.plan.squares = false }
        return grouper
    }

    /// Where the families not found were lost: how many the search's probes can pair at all (a
    /// copy within the plan's radii and piece radius of its photo: `CandidatePlan.reaches`), and
    /// how many an exact search (every hash within the radii) could. Families within the
    /// probes' reach but not found were refused by the judge (or left by clustering); those
    /// within an exact search's reach only, lost to the probes' piece radius, which above
    /// about 500,000 rows (3 pieces, exact to 5 bits) trades them for time.
    static func reach(_ library: RealisticLibrary, planted: [Int], plan: CandidatePlan) -> String {
        let pieces = plan.pieces ?? MultiIndexHash.pieceCount(for: library.count)
        var exact = plan
        exact.framePieceRadius = nil
        exact.windowPieceRadius = nil
        var probed: Set<Int32> = [], anywhere: Set<Int32> = [], all: Set<Int32> = []
        for row in planted {
            let family = library.copyOf[row], copy = library.photo(row), photo = library.photo(Int(family))
            all.insert(family)
            if plan.reaches(copy, photo, pieces: pieces) { probed.insert(family) }
            if exact.reaches(copy, photo, pieces: pieces) { anywhere.insert(family) }
        }
        return "planted families within reach of the search's probes (\(pieces) pieces, piece radius \(plan.windowPieceRadius.map(String.init) ?? "none")): "
            + "\(probed.count)/\(all.count), of an exact search within the same radii: \(anywhere.count)"
    }
}
