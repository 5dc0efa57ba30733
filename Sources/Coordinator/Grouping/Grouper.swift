import Analysis
import Foundation

/// Finds groups among analysed photos: identical bytes first, then near-duplicates, clustered
/// around their keepers (`StarClustering`: confirmed against the group, never chained).
///
/// Near-duplicates are found in two steps (docs/FEATURES.md):
/// 1. Candidates from pHashes, through `CandidateSearch` (`plan`): the whole frames within
///    `threshold` bits, a window of one photo close to the other's whole frame (one is a crop
///    of the other), or the same overlay window of both close (an overlay outside that window).
/// 2. Confirmation of each candidate by the photos' layout thumbnails, compared on the
///    windows that matched (`LayoutThumbnail.difference` at most `frameConfirmation` for
///    whole frames, `windowConfirmation` for windows). Rows from
///    before pipeline 3 have no thumbnail; they fall back to pHash plus dHash on the whole frame.
struct Grouper: Sendable {
    /// pHash distance (of 64 bits) at or under which two whole frames are candidates.
    var threshold: Int = 10
    /// Which windows candidate search compares, and at which radius (docs/FEATURES.md).
    var plan = CandidatePlan()
    /// Threads candidate search runs on (its own, not the cooperative pool's).
    var threads = ProcessInfo.processInfo.activeProcessorCount
    /// The largest `LayoutThumbnail.difference` that confirms whole frames. Looser than for
    /// windows: frames that also agree by pHash have the same geometry, and a tone edit that
    /// clips highlights moves cell ranks a little (docs/FEATURES.md).
    var frameConfirmation: Float = 0.09
    /// The largest `LayoutThumbnail.difference` that confirms a window pairing.
    var windowConfirmation: Float = 0.06
    /// Old rows only: the dHash distance that must also hold.
    var dHashThreshold: Int = 16

    /// Which part of each photo a candidate matched: 0 the whole frame, k the window
    /// `FeatureWindow.crops[k - 1]`.
    struct Pairing: Equatable {
        var slotA: Int
        var slotB: Int
    }

    /// Groups `photos`, to the end.
    func groups(of photos: [GroupingPhoto]) -> [PhotoGroup] {
        (try? groups(of: photos, shouldStop: { false })) ?? []  // never stopped: never throws
    }

    /// Groups `photos`; throws `CancellationError` soon after `shouldStop` says so (it is asked
    /// between chunks of the candidate search and every few thousand confirmations), so a
    /// grouping past its deadline really ends instead of running on beside the next one.
    func groups(of photos: [GroupingPhoto], shouldStop: @escaping @Sendable () -> Bool) throws(CancellationError) -> [PhotoGroup] {
        guard !photos.isEmpty else { return [] }

        // Exact: identical SHA-256. Near-duplicates are looked for among distinct contents only:
        // one representative per digest, the best keeper of its copies.
        var copiesOf: [[UInt8]: [Int]] = [:]
        for (index, photo) in photos.enumerated() where !photo.sha256.isEmpty { copiesOf[photo.sha256, default: []].append(index) }
        let bestCopies = Set(copiesOf.values.map { copies in copies.max { isBetterKeeper(photos[$1], than: photos[$0]) }! })
        let representatives = photos.indices.filter { photos[$0].sha256.isEmpty || bestCopies.contains($0) }

        // Near: candidates, each pair confirmed on the first of its pairings that holds, then
        // clustered around keepers (`StarClustering`), never chained.
        var hashes = CompactHashes(plan: planWithThreshold)
        hashes.reserve(representatives.count)
        for index in representatives { hashes.append(frame: photos[index].pHash, windows: photos[index].windowPHashes) }
        var confirmedPairs: [(Int, Int)] = []
        var confirmedKeys = Set<UInt64>()
        let candidates = CandidateSearch(hashes).candidates(threads: threads, shouldStop: shouldStop)
        if shouldStop() { throw CancellationError() }  // the search may have ended early: its candidates are partial
        for (position, candidate) in candidates.enumerated() {
            if position & 4095 == 0, shouldStop() { throw CancellationError() }
            let key = UInt64(UInt32(min(candidate.a, candidate.b))) << 32 | UInt64(UInt32(max(candidate.a, candidate.b)))
            guard !confirmedKeys.contains(key) else { continue }
            let i = representatives[Int(candidate.a)], j = representatives[Int(candidate.b)]
            if confirms(photos[i], photos[j], Pairing(slotA: Int(candidate.slotA), slotB: Int(candidate.slotB))) {
                confirmedKeys.insert(key)
                confirmedPairs.append((Int(candidate.a), Int(candidate.b)))
            }
        }
        // Centres first: the photo confirmed with the most others (the original a family of
        // edits was made from is confirmed with most of them), then the better keeper.
        var partnerCount = [Int](repeating: 0, count: representatives.count)
        for (a, b) in confirmedPairs { partnerCount[a] += 1; partnerCount[b] += 1 }
        let centreOrder = representatives.indices.sorted { x, y in
            partnerCount[x] != partnerCount[y] ? partnerCount[x] > partnerCount[y]
                : isBetterKeeper(photos[representatives[x]], than: photos[representatives[y]])
        }
        let near = StarClustering.clusters(count: representatives.count, pairs: confirmedPairs, order: centreOrder)

        // Each group takes every identical copy of its members along; identical copies that no
        // near group took are exact groups of their own.
        var components: [[Int]] = near.map { cluster in
            cluster.flatMap { copiesOf[photos[representatives[$0]].sha256] ?? [representatives[$0]] }
        }
        let grouped = Set(near.joined().map { representatives[$0] })
        for copies in copiesOf.values where copies.count > 1 {
            if !copies.contains(where: grouped.contains) { components.append(copies) }
        }

        var groups: [PhotoGroup] = []
        for members in components {
            let keeper = members.max { isBetterKeeper(photos[$1], than: photos[$0]) }!
            let allIdentical = Set(members.map { photos[$0].sha256 }).count == 1 && !photos[keeper].sha256.isEmpty
            groups.append(PhotoGroup(
                kind: allIdentical ? .exact : .near,
                keeper: photos[keeper].id,
                members: members.sorted { photos[$0].path < photos[$1].path }.map { index in
                    PhotoGroup.Member(
                        photoID: photos[index].id,
                        distance: photos[index].sha256 == photos[keeper].sha256 && !photos[index].sha256.isEmpty
                            ? 0 : Self.closestHashDistance(photos[index], photos[keeper]))
                }))
        }
        // Stable order: by the keeper's path.
        let pathOf = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0.path) })
        return groups.sorted { pathOf[$0.keeper]! < pathOf[$1.keeper]! }
    }

    /// `plan` with the whole-frame radius set to `threshold` (the user's `--threshold`).
    var planWithThreshold: CandidatePlan {
        var plan = plan
        plan.frameRadius = threshold
        return plan
    }

    /// The suggested keeper: most pixels, then the largest file, then the sharpest, then the
    /// shortest path (an original rarely has the longest name).
    func isBetterKeeper(_ a: GroupingPhoto, than b: GroupingPhoto) -> Bool {
        let pixelsA = a.width * a.height, pixelsB = b.width * b.height
        if pixelsA != pixelsB { return pixelsA > pixelsB }
        if a.fileSize != b.fileSize { return a.fileSize > b.fileSize }
        if a.sharpness != b.sharpness { return a.sharpness > b.sharpness }
        if a.path.count != b.path.count { return a.path.count < b.path.count }
        return a.path < b.path
    }

    /// Whether the layout thumbnails confirm a candidate pairing. The cells are recomputed per
    /// candidate rather than cached: a few microseconds each, and memory stays bounded by the
    /// photos, not by the number of candidates.
    func confirms(_ a: GroupingPhoto, _ b: GroupingPhoto, _ pairing: Pairing) -> Bool {
        let side = LayoutThumbnail.side
        guard a.thumbnail.count == side * side, b.thumbnail.count == side * side else {
            // Rows from before pipeline 3: the whole frames only, pHash and dHash.
            return pairing == Pairing(slotA: 0, slotB: 0) && PerceptualHash.distance(a.dHash, b.dHash) <= dHashThreshold
        }
        let limit = pairing.slotA == 0 && pairing.slotB == 0 ? frameConfirmation : windowConfirmation
        return LayoutThumbnail.difference(Self.cells(a, pairing.slotA), Self.cells(b, pairing.slotB)) <= limit
    }

    private static func cells(_ photo: GroupingPhoto, _ slot: Int) -> [Float] {
        LayoutThumbnail.cells(of: photo.thumbnail, in: slot == 0 ? .full : FeatureWindow.crops[slot - 1])
    }

    /// The smallest pHash distance between the two photos over the pairings grouping uses
    /// (what the groups listing reports as a member's distance to its keeper).
    static func closestHashDistance(_ a: GroupingPhoto, _ b: GroupingPhoto) -> Int {
        var best = PerceptualHash.distance(a.pHash, b.pHash)
        guard a.windowPHashes.count == b.windowPHashes.count else { return best }
        for (wa, wb) in zip(a.windowPHashes, b.windowPHashes) {
            best = min(best, PerceptualHash.distance(wa, b.pHash), PerceptualHash.distance(a.pHash, wb))
        }
        for k in FeatureWindow.overlayWindows where k < a.windowPHashes.count {
            best = min(best, PerceptualHash.distance(a.windowPHashes[k], b.windowPHashes[k]))
        }
        return best
    }
}
