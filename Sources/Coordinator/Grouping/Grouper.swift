import Analysis

/// Finds groups among analysed photos: identical bytes first, then near-duplicates, joined
/// transitively (union-find).
///
/// Near-duplicates are found in two steps (docs/FEATURES.md):
/// 1. Candidates from pHashes, through `HashIndex`: the whole frames within `threshold` bits,
///    a window of one photo within `windowThreshold` of the other's whole frame (one is a crop
///    of the other), or the same overlay window of both within `windowThreshold` (an overlay
///    outside that window).
/// 2. Confirmation of each candidate by the photos' layout thumbnails, compared on the
///    windows that matched (`LayoutThumbnail.difference` at most `frameConfirmation` for
///    whole frames, `windowConfirmation` for windows). Rows from
///    before pipeline 3 have no thumbnail; they fall back to pHash plus dHash on the whole frame.
struct Grouper: Sendable {
    /// pHash distance (of 64 bits) at or under which two whole frames are candidates.
    var threshold: Int = 10
    /// pHash distance at or under which a window is a candidate for a frame or the same window.
    var windowThreshold: Int = 8
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

    func groups(of photos: [GroupingPhoto]) -> [PhotoGroup] {
        guard !photos.isEmpty else { return [] }
        var sets = DisjointSets(count: photos.count)

        // Exact: identical SHA-256.
        var firstWithDigest: [[UInt8]: Int] = [:]
        for (index, photo) in photos.enumerated() where !photo.sha256.isEmpty {
            if let first = firstWithDigest[photo.sha256] {
                sets.union(first, index)
            } else {
                firstWithDigest[photo.sha256] = index
            }
        }

        // Near: compare distinct contents only (one representative per digest).
        let representatives = photos.indices.filter { index in
            photos[index].sha256.isEmpty || firstWithDigest[photos[index].sha256] == index
        }
        forEachCandidate(representatives.map { photos[$0] }) { a, b, pairing in
            let i = representatives[a], j = representatives[b]
            guard sets.find(i) != sets.find(j) else { return }
            if confirms(photos[i], photos[j], pairing) { sets.union(i, j) }
        }

        var components: [Int: [Int]] = [:]
        for index in photos.indices { components[sets.find(index), default: []].append(index) }
        var groups: [PhotoGroup] = []
        for members in components.values where members.count > 1 {
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

    /// Calls `body(a, b, pairing)` (a ≠ b, indices into `photos`) for every candidate pairing;
    /// every pairing within its threshold is visited, some more than once.
    func forEachCandidate(_ photos: [GroupingPhoto], _ body: (Int, Int, Pairing) -> Void) {
        let windowCount = FeatureWindow.crops.count
        let frames = HashIndex(photos.map(\.pHash))
        // Window indexes hold only photos that have windows; `windowed[k]` maps back.
        let windowed = photos.indices.filter { photos[$0].windowPHashes.count == windowCount }
        let windows = (0..<windowCount).map { k in HashIndex(windowed.map { photos[$0].windowPHashes[k] }) }

        for (a, photo) in photos.enumerated() {
            frames.forEachNeighbour(of: photo.pHash, within: threshold) { b in
                if b > a { body(a, b, Pairing(slotA: 0, slotB: 0)) }
            }
            guard photo.windowPHashes.count == windowCount else { continue }
            for k in 0..<windowCount {
                // This photo's whole frame is another's window: this one is a crop of that one.
                // (Every photo asks as the possible crop, so both directions are covered.)
                windows[k].forEachNeighbour(of: photo.pHash, within: windowThreshold) { w in
                    let b = windowed[w]
                    if b != a { body(b, a, Pairing(slotA: k + 1, slotB: 0)) }
                }
            }
            for k in FeatureWindow.overlayWindows {
                // The same window of both: whatever differs lies outside it.
                windows[k].forEachNeighbour(of: photo.windowPHashes[k], within: windowThreshold) { w in
                    let b = windowed[w]
                    if b > a { body(a, b, Pairing(slotA: k + 1, slotB: k + 1)) }
                }
            }
        }
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

/// Union-find with path halving and union by size.
struct DisjointSets {
    private var parent: [Int]
    private var size: [Int]

    init(count: Int) {
        parent = Array(0..<count)
        size = Array(repeating: 1, count: count)
    }

    mutating func find(_ x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    mutating func union(_ a: Int, _ b: Int) {
        var ra = find(a), rb = find(b)
        guard ra != rb else { return }
        if size[ra] < size[rb] { swap(&ra, &rb) }
        parent[rb] = ra
        size[ra] += size[rb]
    }
}

