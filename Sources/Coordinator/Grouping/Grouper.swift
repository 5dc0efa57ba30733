import Analysis
import Foundation

/// Finds groups among analysed photos: identical bytes first, then near-duplicates, clustered
/// around their keepers (`StarClustering`: confirmed against the group, never chained), then
/// similar shots: other shots of one moment, kept apart from duplicates.
///
/// Near-duplicates are found in two steps (docs/FEATURES.md):
/// 1. Candidates from pHashes, through `CandidateSearch` (`plan`): the whole frames within
///    `threshold` bits, a window of one photo close to the other's whole frame (one is a crop
///    of the other), or the same overlay window of both close (an overlay outside that window).
/// 2. Each candidate pairing judged by `PairJudge` on the photos' layout thumbnails (compared on
///    the windows that matched) and capture times: near, similar, or nothing. Rows from
///    before pipeline 3 have no thumbnail; they fall back to pHash plus dHash on the whole frame.
///
/// Similar groups join near groups (through their keepers) and single photos that are similar
/// shots of each other, clustered the same way; they never count as duplicates.
///
/// Window hashes, thumbnails and chroma layouts are 2 KiB a photo: the store's rows come
/// without them, and a `GroupingFeatureSource` reads each where it is needed.
struct Grouper: Sendable {
    /// Bump whenever a change here, in `PairJudge` (or the `Analysis` measures it calls),
    /// `CandidateSearch` or `StarClustering` can change groups: a rescan keeps a finished
    /// scan's groups only if this is unchanged.
    static let rulesVersion = 49
    /// pHash distance (of 64 bits) at or under which two whole frames are candidates.
    var threshold: Int = 10
    /// Which windows candidate search compares, and at which radius (docs/FEATURES.md).
    var plan = CandidatePlan()
    /// Threads candidate search runs on (its own, not the cooperative pool's).
    var threads = ProcessInfo.processInfo.activeProcessorCount
    /// How a candidate pairing is decided.
    var judge = PairJudge()
    /// How each group's keeper is chosen once the group is known.
    var keeperPolicy = KeeperPolicy()

    /// Which part of each photo a candidate matched: 0 the whole frame, k the window hash k - 1
    /// (`FeatureWindow.crops[k - 1]`, or past them a straightened frame, `PairJudge.throughStraightened`),
    /// `Candidate.mirrorSlot` the whole frame's mirror image,
    /// `Candidate.contentSlot` the content inside its borders.
    struct Pairing: Equatable {
        var slotA: Int
        var slotB: Int
    }

    /// Groups `photos`, to the end.
    func groups(of photos: [GroupingPhoto]) -> [PhotoGroup] {
        (try? groups(of: photos, shouldStop: { false })) ?? []  // never stopped, nothing to load: never throws
    }

    /// Groups `photos`; throws `CancellationError` soon after `shouldStop` says so (it is asked
    /// between chunks of the candidate search and every few thousand confirmations), so a
    /// grouping past its deadline really ends instead of running on beside the next one, and
    /// whatever `features` throws. Without `features`, the photos carry their window hashes
    /// and layouts themselves.
    /// `progress` hears the step and its counts (`cull status`).
    func groups(of photos: [GroupingPhoto], features: (any GroupingFeatureSource)? = nil, progress: GroupingProgress? = nil,
                shouldStop: @escaping @Sendable () -> Bool) throws -> [PhotoGroup] {
        guard !photos.isEmpty else { return [] }

        // Exact: identical SHA-256. Near-duplicates are looked for among distinct contents only:
        // one representative per digest, the best keeper of its copies.
        let (copiesOf, representatives) = exactCopies(photos)

        var (nearPairs, similarPairs, apartPairs, distinctPairs) = try judgedPairs(photos, representatives, features: features, progress: progress,
                                                                                      shouldStop: shouldStop)
        func nearClusters() -> [[Int]] {
            clusters(nearPairs, count: representatives.count, apart: apartPairs, distinct: distinctPairs,
                     distance: { Self.closestHashDistance(photos[representatives[$0]], photos[representatives[$1]]) },
                     photos: photos, photoOf: { representatives[$0] })
        }
        var near = nearClusters()
        // Neighbours in time or in their folder that no candidate related and no near group
        // holds both of: other shots, or near pairs whose confirming pairing the probes missed
        // (then the near groups are made again with them).
        let neighbours = try similarNeighbours(photos, representatives, near: near, judged: [nearPairs, similarPairs, apartPairs, distinctPairs].joined(),
                                               features: features, progress: progress, shouldStop: shouldStop)
        similarPairs += neighbours.similar
        if !neighbours.near.isEmpty {
            nearPairs += neighbours.near
            near = nearClusters()
        }
        progress?.begin(.listing, total: 0)

        // Each group takes every identical copy of its members along; identical copies that no
        // near group took are exact groups of their own.
        var components: [[Int]] = near.map { cluster in
            cluster.flatMap { copiesOf[photos[representatives[$0]].sha256] ?? [representatives[$0]] }
        }
        let grouped = Set(near.joined().map { representatives[$0] })
        for copies in copiesOf.values where copies.count > 1 {
            if !copies.contains(where: grouped.contains) { components.append(copies) }
        }

        // The distances a listing shows use the window hashes: read for group members only.
        var listed = Set(components.joined())
        for (a, b) in similarPairs { listed.insert(representatives[a]); listed.insert(representatives[b]) }
        let windows = try features.map { features in try parallelRead(listed.map { photos[$0].id }, shouldStop: shouldStop, features.windowHashes) } ?? [:]
        var groups: [PhotoGroup] = components.map { members in
            let allIdentical = Set(members.map { photos[$0].sha256 }).count == 1 && !photos[members[0]].sha256.isEmpty
            return group(allIdentical ? .exact : .near, members: members, photos, windows: windows)
        }
        groups += similarGroups(similarPairs, near: near, representatives: representatives, photos, windows: windows, duplicateGroups: groups)
        if features != nil { Self.returnFreedMemory() }  // the last batch's reads (`parallelRead`)
        // Stable order: by the keeper's path, duplicates first.
        let pathOf = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0.path) })
        return groups.sorted { ($0.kind == .similar ? 1 : 0, pathOf[$0.keeper]!) < ($1.kind == .similar ? 1 : 0, pathOf[$1.keeper]!) }
    }

    /// Photos with identical bytes: the copies (in index order) of every digest two photos or
    /// more hold, and the photos near-duplicate search looks at: one per digest, the best keeper
    /// of its copies, and every photo without a digest, in index order. Found by sorting the
    /// digests' first 8 bytes rather than with a dictionary of every photo's digest (90 MiB at a
    /// million photos, held to the end of grouping).
    func exactCopies(_ photos: [GroupingPhoto]) -> (copies: [[UInt8]: [Int]], representatives: [Int]) {
        var keys: [(prefix: UInt64, index: Int32)] = []
        keys.reserveCapacity(photos.count)
        for (index, photo) in photos.enumerated() where !photo.sha256.isEmpty {
            let prefix = photo.sha256.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            keys.append((prefix, Int32(index)))
        }
        keys.sort { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : $0.index < $1.index }
        var copies: [[UInt8]: [Int]] = [:]
        var isRepresentative = [Bool](repeating: true, count: photos.count)
        var start = 0
        while start < keys.count {
            var end = start + 1
            while end < keys.count && keys[end].prefix == keys[start].prefix { end += 1 }
            if end - start > 1 {
                // Same first 8 bytes: the whole digests decide (a run holds one digest but for
                // a 1-in-2^64 coincidence).
                var byDigest: [[UInt8]: [Int]] = [:]
                for key in keys[start..<end] { byDigest[photos[Int(key.index)].sha256, default: []].append(Int(key.index)) }
                for (digest, run) in byDigest where run.count > 1 {
                    let best = run.max { isBetterCentre(photos[$1], than: photos[$0]) }!
                    for index in run where index != best { isRepresentative[index] = false }
                    copies[digest] = run
                }
            }
            start = end
        }
        return (copies, photos.indices.filter { isRepresentative[$0] })
    }

    /// Candidates judged: near and similar pairs, the other shots shown to be (`apart`: similar
    /// too, and never in one duplicate group) and the pairs whose colours say they are different
    /// pictures (`distinct`: apart unless their partners outvote it, `StarClustering`), as
    /// indexes into `representatives`.
    /// A pair is judged once, on all its pairings together (`PairJudge`: the best-aligned
    /// pairing decides). Judged on `threads` threads: the
    /// candidates are sorted by pair, so a pair's pairings lie together, and the threads take
    /// runs of them. With a feature source, batch by batch (`judgeBatch` candidates, whole
    /// pairs): each batch reads the layouts of the photos it pairs and lets them go after.
    private func judgedPairs(_ photos: [GroupingPhoto], _ representatives: [Int], features: (any GroupingFeatureSource)?,
                             progress: GroupingProgress?, shouldStop: @escaping @Sendable () -> Bool) throws
        -> (near: [(Int, Int)], similar: [(Int, Int)], apart: [(Int, Int)], distinct: [(Int, Int)]) {
        progress?.begin(.searching, total: representatives.count)
        var parts = try searchCandidates(photos, representatives, features: features, progress: progress, shouldStop: shouldStop)
        progress?.begin(.judging, total: parts.reduce(0) { $0 + $1.count })
        let sorted = CandidateSort.sorted(parts: &parts)
        var near = Set<UInt64>(), similar = Set<UInt64>(), apart = Set<UInt64>()
        var start = 0
        while start < sorted.count {
            var end = features == nil ? sorted.count : min(sorted.count, start + judgeBatch)
            while end < sorted.count, Self.pairKey(sorted[end]) == Self.pairKey(sorted[end - 1]) { end += 1 }
            let found = try judge(sorted, start..<end, photos, representatives, features: features, progress: progress, shouldStop: shouldStop)
            near.formUnion(found.near)
            similar.formUnion(found.similar)
            apart.formUnion(found.apart)
            start = end
        }
        // (Batches end on whole pairs and chunks judge whole pairs: each pair has one verdict. Kept
        // as a guard that a near pair is never listed as anything else; an other shot is both
        // similar and apart.)
        apart.subtract(near)
        similar.subtract(near)
        func pairs(_ keys: Set<UInt64>) -> [(Int, Int)] { keys.sorted().map { (Int($0 >> 32), Int($0 & 0xFFFF_FFFF)) } }
        return (pairs(near), pairs(similar), pairs(apart.intersection(similar)), pairs(apart.subtracting(similar)))
    }

    /// Candidates the judge reads in one batch when layouts are read from the store: about
    /// 200,000 photos' layouts (240 MB) at the most, and a million photos' candidates (3.4
    /// million at pipeline 3's plan) in 13 batches.
    var judgeBatch = 262_144

    /// Candidate search over the representatives, in the parts its threads found them in; its
    /// hashes and tables are released on return.
    private func searchCandidates(_ photos: [GroupingPhoto], _ representatives: [Int], features: (any GroupingFeatureSource)?,
                                  progress: GroupingProgress?, shouldStop: @escaping @Sendable () -> Bool) throws -> [[Candidate]] {
        let plan = planWithThreshold.sized(for: representatives.count)
        let advance: @Sendable (Int) -> Void = { progress?.advance(by: $0) }
        if let features {
            // The crop windows are read a chunk of rows at a time while the search runs.
            let ids = representatives.map { photos[$0].id }
            let hashes: CompactHashes
            if let all = features.takeSearchHashes(for: photos), all.held == CompactHashes.overlayHeld(plan) {
                hashes = CompactHashes(rows: representatives, of: all, plan: plan)  // read with the rows
            } else {
                hashes = try candidateHashes(of: ids, plan: plan, features: features, shouldStop: shouldStop)
            }
            let candidates = try CandidateSearch(hashes, threads: threads).candidateParts(threads: threads, cropWindows: { range in
                try features.cropWindows(of: ids[range], plan: plan)
            }, shouldStop: shouldStop, progress: advance)
            if shouldStop() { throw CancellationError() }  // the search may have ended early: its candidates are partial
            return candidates
        }
        var hashes = CompactHashes(plan: plan)
        hashes.reserve(representatives.count)
        for index in representatives {
            let photo = photos[index]
            hashes.append(frame: photo.pHash, windows: photo.windowPHashes, mirror: photo.mirrorPHash,
                          content: photo.contentBox == nil ? nil : photo.contentPHash, turned: photo.turnedPHash, square: photo.squarePHash)
        }
        let candidates = try CandidateSearch(hashes, threads: threads).candidateParts(threads: threads, cropWindows: nil, shouldStop: shouldStop, progress: advance)
        if shouldStop() { throw CancellationError() }  // the search may have ended early: its candidates are partial
        return candidates
    }

    /// One batch of sorted candidates judged on `threads` threads, by pair key.
    private func judge(_ sorted: SortedCandidates, _ batch: Range<Int>, _ photos: [GroupingPhoto], _ representatives: [Int],
                       features: (any GroupingFeatureSource)?, progress: GroupingProgress?, shouldStop: @escaping @Sendable () -> Bool) throws
        -> (near: [UInt64], similar: [UInt64], apart: [UInt64]) {
        var rows = Set<Int32>()
        for index in batch {
            let candidate = sorted[index]
            rows.insert(candidate.a)
            rows.insert(candidate.b)
        }
        let loaded = try features.map { features in try parallelRead(rows.map { photos[representatives[Int($0)]].id }, shouldStop: shouldStop, features.layouts) }
        @Sendable func subject(_ row: Int32) -> GroupingPhoto { Self.subject(row, photos, representatives, loaded) }
        let judge = self.judge
        let parts = ParallelChunks.run(count: batch.count, threads: threads, chunk: 2048, shouldStop: shouldStop,
                                       progress: { progress?.advance(by: $0) },
                                       initial: { (near: [UInt64](), nearPairings: [[Pairing]](), similar: [UInt64](), apart: [UInt64](),
                                                   close: [RecheckedPair](), cache: LayoutCellCache(rows: representatives.count)) }) { range, found in
            // A thread's cache serves all its chunks: the next chunk's pairs meet the same photos.
            var index = batch.lowerBound + range.lowerBound
            let upper = batch.lowerBound + range.upperBound
            // A pair is judged whole, by the chunk its first pairing falls in: the pairings of
            // a pair begun in the chunk before are its, and one begun here is finished past `upper`.
            while index > batch.lowerBound, index < upper, Self.pairKey(sorted[index]) == Self.pairKey(sorted[index - 1]) { index += 1 }
            var pairings: [Pairing] = []
            while index < upper {
                let key = Self.pairKey(sorted[index])
                let first = sorted[index]
                pairings.removeAll(keepingCapacity: true)
                while index < batch.upperBound, Self.pairKey(sorted[index]) == key {
                    let candidate = sorted[index]
                    // Candidates name their photos in either order: each pairing as seen from `first.a`.
                    pairings.append(candidate.a == first.a ? Pairing(slotA: Int(candidate.slotA), slotB: Int(candidate.slotB))
                                                           : Pairing(slotA: Int(candidate.slotB), slotB: Int(candidate.slotA)))
                    index += 1
                }
                var best: PairJudge.BestPairing?
                let relation = judge.relation(subject(first.a), subject(first.b), pairings: pairings, rows: (first.a, first.b), cache: &found.cache,
                                              best: &best)
                // As seen from the pair's first row, as `reachCheck` lists them.
                func seenFromFirstRow() -> [Pairing] { first.a <= first.b ? pairings : pairings.map { Pairing(slotA: $0.slotB, slotB: $0.slotA) } }
                switch relation {
                case .near?:
                    found.near.append(key)
                    found.nearPairings.append(seenFromFirstRow())
                case .similar?: found.similar.append(key)
                case .distinct?: found.apart.append(key)
                case .otherShot?:
                    found.similar.append(key)
                    found.apart.append(key)
                case nil:
                    // Only photos of other pixel sizes can be a copy and the photo it was cut
                    // from (`PairJudge.copyIsSmaller`): no window hashes read for the others.
                    if let best, PairJudge.cameClose(best),
                       !PairJudge.onePixelCount(photos[representatives[Int(first.a)]], photos[representatives[Int(first.b)]]) {
                        found.close.append(RecheckedPair(key: key, pairings: seenFromFirstRow(), registrationLimit: judge.registrationLimit(best)))
                    }
                }
            }
        }
        if shouldStop() { throw CancellationError() }
        let near = parts.flatMap { zip($0.near, $0.nearPairings).map { (key: $0, pairings: $1) } }
        let checked = try reachCheck(near, close: parts.flatMap(\.close), photos, representatives, layouts: loaded, features: features,
                                     shouldStop: shouldStop)
        return (checked.near, parts.flatMap(\.similar) + checked.similar, parts.flatMap(\.apart) + checked.apart)
    }

    /// Similar groups: each duplicate group stands as one unit (its keeper), each photo in none
    /// as another; units with similar pairs between them are clustered like near pairs. A
    /// group lists each unit's keeper: the shots to choose from, not copies to remove.
    private func similarGroups(_ pairs: [(Int, Int)], near: [[Int]], representatives: [Int], _ photos: [GroupingPhoto], windows: [Int64: [UInt64]],
                               duplicateGroups: [PhotoGroup]) -> [PhotoGroup] {
        guard !pairs.isEmpty else { return [] }
        // Units: near clusters first, then every other representative on its own.
        var unitOf = [Int](repeating: -1, count: representatives.count)
        for (unit, cluster) in near.enumerated() { for member in cluster { unitOf[member] = unit } }
        var unitPhoto: [Int] = near.indices.map { unit in
            let id = duplicateGroups[unit].keeper
            return near[unit].map { representatives[$0] }.first { photos[$0].id == id } ?? representatives[near[unit][0]]
        }
        for member in representatives.indices where unitOf[member] < 0 {
            unitOf[member] = unitPhoto.count
            unitPhoto.append(representatives[member])
        }
        var unitPairs = Set<UInt64>()
        for (a, b) in pairs where unitOf[a] != unitOf[b] {
            let x = unitOf[a], y = unitOf[b]
            unitPairs.insert(UInt64(UInt32(min(x, y))) << 32 | UInt64(UInt32(max(x, y))))
        }
        let clustered = clusters(unitPairs.map { (Int($0 >> 32), Int($0 & 0xFFFF_FFFF)) }, count: unitPhoto.count,
                                 photos: photos, photoOf: { unitPhoto[$0] })
        return clustered.map { units in
            let members = units.map { unitPhoto[$0] }
            return group(.similar, members: members, photos, windows: windows)
        }
    }

    /// A group of `members` (indexes into `photos`), its keeper chosen by `keeperPolicy`;
    /// `windows` holds the window hashes of photos read without them (a member's distance to
    /// the keeper uses every pairing grouping compares).
    private func group(_ kind: PhotoGroup.Kind, members: [Int], _ photos: [GroupingPhoto], windows: [Int64: [UInt64]]) -> PhotoGroup {
        func withWindows(_ index: Int) -> GroupingPhoto {
            var photo = photos[index]
            if photo.windowPHashes.isEmpty, let held = windows[photo.id] { photo.windowPHashes = held }
            return photo
        }
        let sorted = members.sorted { photos[$0].path < photos[$1].path }
        let choice = keeperPolicy.choose(sorted.map { photos[$0] }, similar: kind == .similar)
        let keeper = sorted[choice.keeper]
        // Paths of one file (the keeper's first, then in path order): the first is the photo.
        var files = Set<FileIdentity>()
        var sameFile = Set<Int>()
        for index in [keeper] + sorted.filter({ $0 != keeper }) {
            let photo = photos[index]
            guard photo.inode != 0 else { continue }
            if !files.insert(FileIdentity(device: photo.device, inode: photo.inode)).inserted { sameFile.insert(index) }
        }
        // A camera's RAW and its JPEG of one shot, both in the group: kept together.
        let paired = kind == .similar ? [:] : RawJPEGPairs.partners(sorted.map { photos[$0].path })
        return PhotoGroup(
            kind: kind,
            keeper: photos[keeper].id,
            members: sorted.enumerated().map { position, index in
                let identical = photos[index].sha256 == photos[keeper].sha256 && !photos[index].sha256.isEmpty
                let relation: MemberRelation = index == keeper ? .keeper
                    : sameFile.contains(index) ? .sameFile
                    : kind == .similar ? .similarShot
                    : paired[position] != nil ? .rawJPEGPair
                    : identical ? .identical
                    : choice.upscaled[position] ? .upscaledCopy : .editedCopy
                return PhotoGroup.Member(
                    photoID: photos[index].id,
                    distance: identical ? 0 : Self.closestHashDistance(withWindows(index), withWindows(keeper)),
                    relation: relation)
            },
            keeperReason: choice.reason)
    }

    private struct FileIdentity: Hashable {
        var device: Int64
        var inode: Int64
    }

    /// `plan` with the whole-frame radius set to `threshold` (the user's `--threshold`).
    var planWithThreshold: CandidatePlan {
        var plan = plan
        plan.frameRadius = threshold
        return plan
    }

    /// The smallest pHash distance between the two photos over the pairings grouping uses
    /// (what the groups listing reports as a member's distance to its keeper).
    static func closestHashDistance(_ a: GroupingPhoto, _ b: GroupingPhoto) -> Int {
        var best = PerceptualHash.distance(a.pHash, b.pHash)
        if let mirror = a.mirrorPHash { best = min(best, PerceptualHash.distance(mirror, b.pHash)) }
        if let mirror = b.mirrorPHash { best = min(best, PerceptualHash.distance(a.pHash, mirror)) }
        if let turned = a.turnedPHash { best = min(best, PerceptualHash.distance(turned, b.pHash)) }
        if let turned = b.turnedPHash { best = min(best, PerceptualHash.distance(a.pHash, turned)) }
        if let square = a.squarePHash { best = min(best, PerceptualHash.distance(square, b.pHash)) }
        if let square = b.squarePHash { best = min(best, PerceptualHash.distance(a.pHash, square)) }
        let contentA = a.contentBox == nil ? nil : a.contentPHash, contentB = b.contentBox == nil ? nil : b.contentPHash
        if let contentA { best = min(best, PerceptualHash.distance(contentA, b.pHash)) }
        if let contentB { best = min(best, PerceptualHash.distance(a.pHash, contentB)) }
        if let contentA, let contentB { best = min(best, PerceptualHash.distance(contentA, contentB)) }
        // Each side's windows (rows of different pipelines hold different counts).
        for window in a.windowPHashes { best = min(best, PerceptualHash.distance(window, b.pHash)) }
        for window in b.windowPHashes { best = min(best, PerceptualHash.distance(a.pHash, window)) }
        for k in FeatureWindow.overlayWindows + FeatureWindow.captionWindows where k < min(a.windowPHashes.count, b.windowPHashes.count) {
            best = min(best, PerceptualHash.distance(a.windowPHashes[k], b.windowPHashes[k]))
        }
        return best
    }
}
