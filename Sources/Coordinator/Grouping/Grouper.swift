import Analysis

/// Finds groups among analysed photos: identical bytes first, then near-duplicates by
/// perceptual-hash distance, joined transitively (union-find).
///
/// Near-duplicate candidates come from multi-index hashing, so the work grows with the number
/// of close pairs rather than with n²: the 64-bit pHash is cut into `blocks` pieces, and two
/// hashes within distance t must agree within ⌊t / blocks⌋ bits on at least one piece
/// (pigeonhole). Each piece indexes a table; a photo is compared only with photos sharing a
/// piece within that radius.
struct Grouper: Sendable {
    /// pHash Hamming distance at or under which two photos are near-duplicates.
    var threshold: Int = 10
    /// dHash distance that must also hold (a second, independent check against false matches).
    var dHashThreshold: Int = 16

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
        forEachCandidatePair(representatives.map { photos[$0].pHash }) { a, b in
            let i = representatives[a], j = representatives[b]
            if PerceptualHash.distance(photos[i].pHash, photos[j].pHash) <= threshold,
               PerceptualHash.distance(photos[i].dHash, photos[j].dHash) <= dHashThreshold {
                sets.union(i, j)
            }
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
                            ? 0 : PerceptualHash.distance(photos[index].pHash, photos[keeper].pHash))
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

    /// Calls `body(a, b)` (a < b) for every pair that may be within `threshold` of each other;
    /// every pair that is, is visited (some more than once).
    func forEachCandidatePair(_ hashes: [UInt64], _ body: (Int, Int) -> Void) {
        let blocks = 4
        let bitsPerBlock = 64 / blocks
        let radius = threshold / blocks
        let neighbours = Self.masks(bits: bitsPerBlock, upTo: radius)
        for block in 0..<blocks {
            let shift = UInt64(block * bitsPerBlock)
            var table: [UInt16: [Int]] = [:]
            for (index, hash) in hashes.enumerated() {
                table[UInt16(truncatingIfNeeded: hash >> shift), default: []].append(index)
            }
            for (index, hash) in hashes.enumerated() {
                let key = UInt16(truncatingIfNeeded: hash >> shift)
                for mask in neighbours {
                    guard let bucket = table[key ^ mask] else { continue }
                    for other in bucket where other > index { body(index, other) }
                }
            }
        }
    }

    /// Every `bits`-bit mask with at most `radius` bits set.
    static func masks(bits: Int, upTo radius: Int) -> [UInt16] {
        (0..<(1 << bits)).compactMap { value in
            value.nonzeroBitCount <= radius ? UInt16(value) : nil
        }
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
