@testable import Coordinator
import Analysis
import Foundation
import Testing

/// A diagnosis, not a test: what the grouping benchmark's realistic rows (`RealisticLibrary`)
/// lose and wrongly join, and why. Skipped unless CULL_BENCH_MISSES names a row count (and
/// CULL_FEATURE_MODEL the model); `CULL_BENCH_MISSES_OUT` is where the missed copies are listed
/// (default /tmp/cull-benchmark-misses.txt). Prints, per edit, the nearest hash distance of the
/// missed families' copies to their photo (over the frame, the plan's crop windows either way
/// and the mirror image: past the crop radius, search cannot pair them), each missed family
/// under the first cause that holds (`whereMissedFamiliesWent`; of those taken by a look-alike,
/// whether the photo itself or only its copies went to another family's group, and the first
/// twelve described: how the copies and the photo relate to the rows they went with), and for
/// the rows in another photo's duplicate group, what they share with that group's photo. The file lists
/// each missed copy with that distance and slot, the judge's verdict at that slot, and the real
/// photo its layout comes from. bench/RESULTS.md, "WebP at full range, and what the million
/// rows still miss", has a run.
@Suite("Misses of the grouping benchmark (diagnosis)", .serialized, .timeLimit(.minutes(30)))
struct BenchmarkMisses {
    static let environment = ProcessInfo.processInfo.environment
    static let count = Int(environment["CULL_BENCH_MISSES"] ?? "") ?? 0

    @Test("missed families and mixed groups, with their reasons", .enabled(if: count > 0))
    func diagnose() throws {
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        var library = RealisticLibrary.generate(count: Self.count, model: model)
        let unturned = library
        library.turnHues()
        let photos = (0..<Self.count).map(library.lightPhoto)
        let groups = try Grouper().groups(of: photos, features: GroupingScaleBenchmark.GeneratedFeatures(library: library),
                                          progress: GroupingProgress(), shouldStop: { false })
        var groupOf: [Int: Int] = [:]
        for (index, group) in groups.enumerated() where group.kind != .similar {
            for member in group.members { groupOf[Int(member.photoID)] = index }
        }
        // Every real pHash, frame and window, sets exactly 32 of its 64 bits (a median
        // threshold), so real distances are even; rows mixed from eight sources' bytes need not.
        var ones: [Int: Int] = [:]
        for row in stride(from: 0, to: library.count, by: 10) { ones[library.frames[row].nonzeroBitCount, default: 0] += 1 }
        print("benchmark misses: bits set in every tenth row's frame hash: "
              + ones.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        try missedFamilies(library, model, groupOf: groupOf)
        whereMissedFamiliesWent(library, model, groups: groups, groupOf: groupOf, unturned: unturned)
        mixedGroups(library, model, groups)
    }

    /// CULL_BENCH_MODEL_PAIRS: edits (comma-separated, as the model names them, e.g. "webp,webp_crop10").
    static let modelPairs = (environment["CULL_BENCH_MODEL_PAIRS"] ?? "").split(separator: ",").map(String.init)

    @Test("the model's real (original, copy) pairs of some edits, pairing by pairing", .enabled(if: !modelPairs.isEmpty))
    func judgeModelPairs() throws {
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        func photo(_ index: Int) -> GroupingPhoto {
            let row = model.photos[index]
            return GroupingPhoto(id: Int64(index), path: "/\(index)", sha256: Array(String(index).utf8), pHash: row.pHash, dHash: 0,
                                 windowPHashes: row.windows, thumbnail: row.thumbnail, width: row.width, height: row.height, fileSize: 1,
                                 sharpness: 1, mirrorPHash: row.mirror, contentBox: row.contentBox, contentPHash: row.content, chroma: row.chroma,
                                 detail: row.detail)
        }
        let plan = CandidatePlan()
        var pairs = 0, nearSomewhere = 0
        for (original, copies) in model.family.sorted(by: { $0.key < $1.key }) {
            for (edit, copy) in copies where Self.modelPairs.contains(model.transforms[edit]) {
                let a = photo(original), b = photo(copy)
                // The whole frames within the frame radius, and each crop window of the original within the crop radius.
                var pairings = [(Grouper.Pairing(slotA: 0, slotB: 0), (a.pHash ^ b.pHash).nonzeroBitCount)]
                pairings += plan.cropWindows.map { (Grouper.Pairing(slotA: $0 + 1, slotB: 0), (a.windowPHashes[$0] ^ b.pHash).nonzeroBitCount) }
                let verdicts = pairings.filter { $0.1 <= ($0.0.slotA == 0 ? plan.frameRadius : plan.cropRadius) }.map { pairing, bits in
                    (slot: pairing.slotA, bits: bits, relation: PairJudge().relation(a, b, pairing))
                }
                pairs += 1
                if verdicts.contains(where: { $0.relation == .near }) { nearSomewhere += 1 }
                print("  \(model.photos[original].group) \(model.transforms[edit]): "
                      + verdicts.map { "\($0.slot == 0 ? "frame" : "w\($0.slot - 1)") \($0.bits) bits \($0.relation.map { "\($0)" } ?? "none")" }.joined(separator: ", "))
            }
        }
        print("model pairs: \(pairs) (original, copy) pairs of \(Self.modelPairs.joined(separator: ", ")); near on some pairing: \(nearSomewhere)")
    }

    /// The judge's verdict on two photos over every pairing within the plan's reach (what an
    /// exact search with the plan would hand it).
    static func verdictWithinReach(_ a: GroupingPhoto, _ b: GroupingPhoto, plan: CandidatePlan) -> PairRelation? {
        var cache = LayoutCellCache(capacity: 0)
        return PairJudge().relation(a, b, pairings: plan.pairingsWithinReach(a, b), rows: (0, 1), cache: &cache)
    }

    /// A family taken by a look-alike: where the photo and its near copies went, and for each
    /// row of another family in a copy's group, how the copy and the photo relate to it
    /// (verdict on the pairings within reach, frames' distance) beside how the copy relates to
    /// its photo.
    func lookAlike(_ library: RealisticLibrary, _ model: FeatureModel, photo: Int, copies: [Int], groups: [PhotoGroup],
                   groupOf: [Int: Int], plan: CandidatePlan) -> String {
        func relation(_ a: Int, _ b: Int) -> String {
            let verdict = Self.verdictWithinReach(library.photo(a), library.photo(b), plan: plan).map { "\($0)" } ?? "none"
            return "\(verdict) (\((library.frames[a] ^ library.frames[b]).nonzeroBitCount) bits)"
        }
        func group(_ row: Int) -> String {
            guard let index = groupOf[row] else { return "no group" }
            return "group \(index) (\(groups[index].members.count) rows, keeper \(groups[index].keeper))"
        }
        let picture = model.photos[Int(library.sources[photo * RealisticLibrary.chunks])].group
        // The photo's standing in a look-alike's group: how it relates to each member.
        let standing = groupOf[photo].map { index in
            " (" + groups[index].members.map { Int($0.photoID) }.filter { $0 != photo }.map { "\($0): \(relation(photo, $0))" }.joined(separator: ", ") + ")"
        } ?? ""
        return "photo \(photo) (\(picture)) in \(group(photo))\(standing); " + copies.map { copy in
            let others = groupOf[copy].map { groups[$0].members.map { Int($0.photoID) }.filter { library.family($0) != photo } } ?? []
            return "copy \(copy) \(model.transforms[Int(library.edit[copy])]) in \(group(copy)), to its photo \(relation(copy, photo))"
                + others.prefix(3).map { other in
                    ", other \(other) (burst: \(library.burstOf[other] >= 0), copy: \(library.copyOf[other] >= 0)): copy to it \(relation(copy, other)), photo to it \(relation(photo, other))"
                }.joined()
        }.joined(separator: "; ")
    }

    /// The copy's nearest hash slot to its photo: the distance and which slot (`frame`, `o`k: the
    /// photo's window k against the copy's frame, `c`k: the other way, `mirror`).
    static func nearest(_ library: RealisticLibrary, copy: Int, photo: Int) -> (distance: Int, slot: String) {
        var best = ((library.frames[photo] ^ library.frames[copy]).nonzeroBitCount, "frame")
        for k in CandidatePlan().sized(for: library.count).cropWindows {
            let photoWindow = (library.hash(photo, slot: k + 1) ^ library.frames[copy]).nonzeroBitCount
            let copyWindow = (library.hash(copy, slot: k + 1) ^ library.frames[photo]).nonzeroBitCount
            if photoWindow < best.0 { best = (photoWindow, "o\(k)") }
            if copyWindow < best.0 { best = (copyWindow, "c\(k)") }
        }
        let mirror = (library.hash(copy, slot: Int(Candidate.mirrorSlot)) ^ library.frames[photo]).nonzeroBitCount
        return mirror < best.0 ? (mirror, "mirror") : best
    }

    func missedFamilies(_ library: RealisticLibrary, _ model: FeatureModel, groupOf: [Int: Int]) throws {
        let planted = (0..<library.count).filter { library.copyOf[$0] >= 0 }
        let found = Set(planted.filter { groupOf[$0] != nil && groupOf[$0] == groupOf[Int(library.copyOf[$0])] }.map { library.copyOf[$0] })
        var distances: [String: [Int: Int]] = [:], lines: [String] = []
        for copy in planted where !found.contains(library.copyOf[copy]) {
            let photo = Int(library.copyOf[copy]), edit = model.transforms[Int(library.edit[copy])]
            let nearest = Self.nearest(library, copy: copy, photo: photo)
            distances[edit, default: [:]][nearest.distance, default: 0] += 1
            // The judge on that one pairing (registration included), as grouping would start it.
            var verdict = "-"
            if nearest.slot.hasPrefix("o"), let k = Int(nearest.slot.dropFirst()) {
                verdict = PairJudge().relation(library.photo(photo), library.photo(copy), Grouper.Pairing(slotA: k + 1, slotB: 0))
                    .map { "\($0)" } ?? "none"
            }
            let source = model.photos[Int(library.sources[photo * RealisticLibrary.chunks])].group
            lines.append("photo \(photo) copy \(copy) \(edit): nearest \(nearest.distance) bits at \(nearest.slot), judge there \(verdict), layout of \(source)")
        }
        print("benchmark misses: \(Set(planted.map { library.copyOf[$0] }).count - found.count) families missed; their copies' nearest distance, per edit:")
        for (edit, counts) in distances.sorted(by: { $0.key < $1.key }) {
            print("  \(edit): " + counts.sorted { $0.key < $1.key }.map { "\($0.key) bits \($0.value)" }.joined(separator: ", "))
        }
        let path = Self.environment["CULL_BENCH_MISSES_OUT"] ?? "/tmp/cull-benchmark-misses.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        print("benchmark misses: each missed copy in \(path)")
    }

    /// Each missed family in the first of these that holds: no copy within the plan's radii of
    /// its photo (`past the radii`); none within the probes' reach (`past the probes`: 3-piece
    /// tables probe exactly to 5 bits); none the judge calls near on every pairing within the
    /// radii (`refused by the judge`, by verdict and by the real picture the photo's layout
    /// shows); the photo, or a copy the judge calls near, in a duplicate group of another
    /// family's rows (`taken by a look-alike`: rows made from the same few hundred real pictures,
    /// which a library of distinct photos has fewer of); else `left by clustering`. The first
    /// twelve left by clustering are listed: each copy's group, and the judge's verdict on the
    /// pairings the probes return (`probedPairings`) seen from either photo, and whether the
    /// copy is in a similar group with the photo. The first twelve past the probes are listed
    /// with each copy's pairings within the radii (slots, bits, the judge's verdict on each
    /// alone); those taken by a look-alike with the photo's verdict against each member of the
    /// look-alike's group; those refused are judged again on `unturned` (the library before
    /// `turnHues`): near there is a refusal of the benchmark's hue turn alone.
    func whereMissedFamiliesWent(_ library: RealisticLibrary, _ model: FeatureModel, groups: [PhotoGroup], groupOf: [Int: Int],
                                 unturned: RealisticLibrary) {
        let plan = CandidatePlan().sized(for: library.count)
        let pieces = plan.pieces ?? MultiIndexHash.pieceCount(for: library.count)
        var exact = plan
        exact.framePieceRadius = nil
        exact.windowPieceRadius = nil
        var copies: [Int: [Int]] = [:]
        for row in 0..<library.count where library.copyOf[row] >= 0 { copies[Int(library.copyOf[row]), default: []].append(row) }
        func mixed(_ row: Int) -> Bool {
            guard let group = groupOf[row] else { return false }
            return groups[group].members.contains { library.family(Int($0.photoID)) != library.family(row) }
        }
        var causes: [String: Int] = [:], refusedBy: [String: Int] = [:], refusedPictures: [String: Int] = [:], clusteringLines: [String] = []
        var lookAlikeLines: [String] = [], lookAlikeWays: [String: Int] = [:], probeLines: [String] = [], refusedForHueTurn = 0
        for (photo, rows) in copies where !rows.contains(where: { groupOf[$0] != nil && groupOf[$0] == groupOf[photo] }) {
            let photoRow = library.photo(photo)
            let reachable = rows.filter { plan.reaches(library.photo($0), photoRow, pieces: pieces) }
            guard !reachable.isEmpty else {
                let withinRadii = rows.contains { exact.reaches(library.photo($0), photoRow, pieces: pieces) }
                causes[withinRadii ? "past the probes" : "past the radii", default: 0] += 1
                if withinRadii, probeLines.count < 12 {
                    // Each copy's pairings within the radii: slots, bits, and the judge's verdict on that pairing alone.
                    probeLines.append("photo \(photo): " + rows.map { row in
                        let copy = library.photo(row)
                        return "\(row) \(model.transforms[Int(library.edit[row])]): " + exact.pairingsWithinReach(photoRow, copy).map { pairing in
                            let verdict = PairJudge().relation(photoRow, copy, pairing).map { "\($0)" } ?? "none"
                            return "\(pairing.slotA)-\(pairing.slotB) \((photoRow.pHash(atSlot: pairing.slotA) ^ copy.pHash(atSlot: pairing.slotB)).nonzeroBitCount) bits \(verdict)"
                        }.joined(separator: ", ")
                    }.joined(separator: "; "))
                }
                continue
            }
            let verdicts = reachable.map { Self.verdictWithinReach(photoRow, library.photo($0), plan: plan) }
            let nearCopies = zip(reachable, verdicts).filter { $0.1 == .near }.map(\.0)
            guard !nearCopies.isEmpty else {
                causes["refused by the judge", default: 0] += 1
                for verdict in Set(verdicts.map { $0.map { "\($0)" } ?? "none" }) { refusedBy[verdict, default: 0] += 1 }
                let picture = model.photos[Int(library.sources[photo * RealisticLibrary.chunks])].group
                refusedPictures[String(picture.split(separator: "/").last ?? ""), default: 0] += 1
                // Near with the sources' own hues: refused for the benchmark's hue turn alone
                // (a colour edit's chroma, turned after the edit, follows no edit of the turned photo).
                if reachable.contains(where: { Self.verdictWithinReach(unturned.photo(photo), unturned.photo($0), plan: plan) == .near }) {
                    refusedForHueTurn += 1
                }
                continue
            }
            let cause = mixed(photo) || nearCopies.contains(where: mixed) ? "taken by a look-alike" : "left by clustering"
            causes[cause, default: 0] += 1
            if cause == "taken by a look-alike" {
                lookAlikeWays[mixed(photo) ? "the photo in a look-alike's group" : "only copies in a look-alike's group", default: 0] += 1
                if lookAlikeLines.count < 12 {
                    lookAlikeLines.append(lookAlike(library, model, photo: photo, copies: nearCopies, groups: groups, groupOf: groupOf, plan: plan))
                }
            }
            if cause == "left by clustering", clusteringLines.count < 12 {
                func describe(_ row: Int) -> String {
                    guard let group = groupOf[row] else { return "no group" }
                    let members = groups[group].members.map { Int($0.photoID) }
                    return "group \(group) (\(groups[group].kind), \(members.count) rows, keeper \(groups[group].keeper), "
                        + "families \(Set(members.map(library.family)).count))"
                }
                clusteringLines.append("photo \(photo): \(describe(photo)); copies: " + rows.map { row in
                    let copy = library.photo(row), all = plan.pairingsWithinReach(photoRow, copy)
                    let probed = plan.probedPairings(photoRow, copy, pieces: pieces)
                    var cache = LayoutCellCache(capacity: 0)
                    let verdict = probed.isEmpty ? "unprobed" : PairJudge().relation(photoRow, copy, pairings: probed, rows: (0, 1), cache: &cache).map { "\($0)" } ?? "none"
                    var reverseCache = LayoutCellCache(capacity: 0)
                    let reversed = probed.map { Grouper.Pairing(slotA: $0.slotB, slotB: $0.slotA) }
                    let reverse = probed.isEmpty ? "unprobed" : PairJudge().relation(copy, photoRow, pairings: reversed, rows: (0, 1), cache: &reverseCache).map { "\($0)" } ?? "none"
                    let similar = groups.firstIndex { $0.kind == .similar && $0.members.contains { Int($0.photoID) == row } && $0.members.contains { Int($0.photoID) == photo } }
                    return "\(row) \(model.transforms[Int(library.edit[row])]) \(nearCopies.contains(row) ? "near" : "not near") in \(describe(row)), "
                        + "probed \(probed.count) of \(all.count) pairings: \(verdict), from the copy \(reverse)\(similar == nil ? "" : ", similar with the photo")"
                }.joined(separator: "; "))
            }
        }
        for line in clusteringLines { print("benchmark misses: left by clustering: \(line)") }
        for line in probeLines { print("benchmark misses: past the probes: \(line)") }
        for line in lookAlikeLines { print("benchmark misses: taken by a look-alike: \(line)") }
        print("benchmark misses: taken by a look-alike: " + lookAlikeWays.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("benchmark misses: where the missed families went: "
              + causes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("benchmark misses: refused by the judge, families with a reachable copy judged: "
              + refusedBy.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
              + "; their photos' real pictures: "
              + refusedPictures.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
              + "; near without the benchmark's hue turn: \(refusedForHueTurn)")
    }

    /// Rows in a duplicate group of another photo's (not their own photo, copy or burst shot):
    /// whether they show the same real picture's layout as the group's photo (their first of the
    /// eight sources, or an edit of it), how far apart their families' hue turns are, and whether that source is
    /// nearly gray (no turn shows on it).
    func mixedGroups(_ library: RealisticLibrary, _ model: FeatureModel, _ groups: [PhotoGroup]) {
        var strays = 0, sameLayout = 0, sameOrNextHue = 0, gray = 0
        var frameDistances: [Int: Int] = [:], others: [String] = []
        for group in groups where group.kind != .similar {
            let rows = group.members.map { Int($0.photoID) }
            let sizes = Dictionary(grouping: rows, by: library.family).mapValues(\.count)
            guard sizes.count > 1, let main = sizes.max(by: { $0.value < $1.value })?.key else { continue }
            let reference = library.family(Int(group.keeper)) == main ? Int(group.keeper) : main
            for row in rows where library.family(row) != main {
                strays += 1
                // The real picture a row's layout shows: its first source's group (an original, or
                // an edit of it for a copy), named without its corpus (the development and hard
                // corpora share some wallpapers).
                let source = Int(library.sources[row * RealisticLibrary.chunks])
                func picture(_ row: Int) -> Substring {
                    model.photos[Int(library.sources[row * RealisticLibrary.chunks])].group.split(separator: "/").last ?? ""
                }
                guard picture(row) == picture(reference) else {
                    others.append("row \(row) in the group of \(reference) (keeper \(group.keeper)): frames "
                                  + "\((library.frames[row] ^ library.frames[reference]).nonzeroBitCount) bits apart, layouts of \(picture(row)) and \(picture(reference))")
                    continue
                }
                sameLayout += 1
                let steps = RealisticLibrary.hueSteps
                let turn = { (row: Int) in Int(library.tones[library.family(row)] % UInt32(steps)) }
                let apart = abs(turn(row) - turn(reference))
                if min(apart, steps - apart) <= 1 { sameOrNextHue += 1 }
                let chroma = model.photos[source].chroma
                if chroma.isEmpty || chroma.reduce(0.0, { $0 + abs(Double($1) - 128) }) / Double(chroma.count) < 4 { gray += 1 }
                frameDistances[(library.frames[row] ^ library.frames[reference]).nonzeroBitCount, default: 0] += 1
            }
        }
        print("benchmark misses: \(strays) rows in another photo's duplicate group; \(sameLayout) show the same real picture as "
              + "that group's photo (of those, \(gray) nearly gray, \(sameOrNextHue) with hue turns the same or one step apart); "
              + "their frames' distance: " + frameDistances.sorted { $0.key < $1.key }.map { "\($0.key) bits \($0.value)" }.joined(separator: ", "))
        for line in others { print("  " + line) }
    }
}

extension BenchmarkMisses {
    /// CULL_BENCH_MISSES_FAMILIES: photo rows of the CULL_BENCH_MISSES-row library
    /// (comma-separated), e.g. the ones `diagnose` lists as left by clustering.
    static let families = (environment["CULL_BENCH_MISSES_FAMILIES"] ?? "").split(separator: ",").compactMap { Int($0) }

    /// CULL_BENCH_MISSES_ROWS: rows of the CULL_BENCH_MISSES-row library (comma-separated), e.g. a
    /// missed family and the look-alike's group that took its photo, grouped together on their own.
    static let rows = (environment["CULL_BENCH_MISSES_ROWS"] ?? "").split(separator: ",").compactMap { Int($0) }

    /// The listed rows grouped on their own, and the judge's verdict on each pair of them over every
    /// pairing within the radii: whether the groups a large library formed of them come from
    /// these rows' own pairs or from others'.
    @Test("the listed rows grouped on their own", .enabled(if: !rows.isEmpty))
    func rowsOnTheirOwn() throws {
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        var library = RealisticLibrary.generate(count: Self.count, model: model)
        let unturned = library
        library.turnHues()
        let groups = try Grouper().groups(of: Self.rows.map(library.lightPhoto), features: GroupingScaleBenchmark.GeneratedFeatures(library: library),
                                          progress: GroupingProgress(), shouldStop: { false })
        print("rows on their own: " + groups.map { "\($0.kind) \($0.members.map(\.photoID)) keeper \($0.keeper)" }.joined(separator: "; "))
        let plan = CandidatePlan().sized(for: library.count)
        // The same rows with their sources' own hues (`turnHues` not applied): whether a verdict
        // comes from the benchmark's hue turn, which a colour edit's chroma does not commute with.
        for (index, a) in Self.rows.enumerated() {
            for b in Self.rows[(index + 1)...] {
                let verdict = Self.verdictWithinReach(library.photo(a), library.photo(b), plan: plan).map { "\($0)" } ?? "none"
                let own = Self.verdictWithinReach(unturned.photo(a), unturned.photo(b), plan: plan).map { "\($0)" } ?? "none"
                print("  \(a)-\(b): \(verdict) (unturned \(own)), family \(library.family(a))-\(library.family(b))")
            }
        }
    }

    /// Each listed family (the photo and the rows after it of its family: its burst shots and
    /// planted copies) grouped on its own, and each row's verdict against the photo over every
    /// pairing within the radii: whether a family the large library lost is lost to its own
    /// rows (a burst shot the judge passes as near, apart from the copies) or to others.
    @Test("the listed families grouped on their own", .enabled(if: !families.isEmpty))
    func familiesOnTheirOwn() throws {
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        var library = RealisticLibrary.generate(count: Self.count, model: model)
        library.turnHues()
        for photo in Self.families {
            let rows = [photo] + (photo + 1..<min(library.count, photo + 12)).filter { library.family($0) == library.family(photo) }
            print("family \(photo): " + rows.map { row in
                let edit = library.copyOf[row] >= 0 ? model.transforms[Int(library.edit[row])] : "-"
                return "\(row) copy of \(library.copyOf[row]), burst of \(library.burstOf[row]), edit \(edit)"
            }.joined(separator: "; "))
            let groups = try Grouper().groups(of: rows.map(library.lightPhoto), features: GroupingScaleBenchmark.GeneratedFeatures(library: library),
                                              progress: GroupingProgress(), shouldStop: { false })
            print("family \(photo) on its own: " + groups.map { "\($0.kind) \($0.members.map(\.photoID))" }.joined(separator: "; "))
            for row in rows.dropFirst() {
                let other = library.photo(row), pairings = CandidatePlan().pairingsWithinReach(library.photo(photo), other)
                var cache = LayoutCellCache(capacity: 0)
                let verdict = PairJudge().relation(library.photo(photo), other, pairings: pairings, rows: (0, 1), cache: &cache)
                // Each pairing alone too: which of them confirms, and which, judged with the rest, overrules it.
                let alone = pairings.map { pairing in
                    "\(pairing.slotA)-\(pairing.slotB) \(PairJudge().relation(library.photo(photo), other, pairing).map { "\($0)" } ?? "none")"
                }
                print("  \(row): pairings \(pairings.map { "\($0.slotA)-\($0.slotB)" }), \(verdict.map { "\($0)" } ?? "none"); alone: \(alone.joined(separator: ", "))")
            }
        }
    }
}
