extension Grouper {
    /// Which of two photos grouping builds around (the centre of a star, the one of identical
    /// copies that candidate search looks at): one without added borders, then most pixels,
    /// then the largest file, then the sharpest, then the shortest path. Not the keeper a listing suggests, which
    /// `keeperPolicy` chooses once a group is known: the groups themselves must not depend on
    /// the user's preferences.
    func isBetterCentre(_ a: GroupingPhoto, than b: GroupingPhoto) -> Bool {
        CentreKey(a).isBetter(than: CentreKey(b)) ?? (a.path < b.path)
    }

    /// `StarClustering` with centres in the order: most partners first (the original a family
    /// of edits was made from is confirmed with most of them), then the better centre
    /// (`isBetterCentre` of `photos[photoOf(unit)]`); `apart` pairs never share a group, nor
    /// `distinct` ones their partners do not outvote (`StarClustering.outvoted`). Only
    /// units with a partner are ordered: the others join no group, and at a million photos
    /// sorting them all by keeper was 2–3 s of one thread. Each unit's `CentreKey` is read once:
    /// a comparison that read the two photos whole (their arrays retained and released, their
    /// paths' characters counted) made the ordering about a second of one thread at a million
    /// rows (perf), with the other core idle.
    func clusters(_ pairs: [(Int, Int)], count: Int, apart: [(Int, Int)] = [], distinct: [(Int, Int)] = [], distance: (Int, Int) -> Int = { _, _ in 0 },
                  photos: [GroupingPhoto], photoOf: (Int) -> Int) -> [[Int]] {
        var partnerCount = [Int](repeating: 0, count: count)
        for (a, b) in pairs { partnerCount[a] += 1; partnerCount[b] += 1 }
        let units = (0..<count).filter { partnerCount[$0] > 0 }
        let keys = units.map { CentreKey(photos[photoOf($0)]) }
        let order = units.indices.sorted { x, y in
            let partnersX = partnerCount[units[x]], partnersY = partnerCount[units[y]]
            if partnersX != partnersY { return partnersX > partnersY }
            return keys[x].isBetter(than: keys[y]) ?? (photos[photoOf(units[x])].path < photos[photoOf(units[y])].path)
        }.map { units[$0] }
        // The anchors' order (`StarClustering`): the better centre alone.
        var position = [Int32](repeating: -1, count: count)
        for (place, unit) in units.enumerated() { position[unit] = Int32(place) }
        return StarClustering.clusters(count: count, pairs: pairs, order: order, apart: apart, distinct: distinct, isBetterAnchor: { x, y in
            keys[Int(position[x])].isBetter(than: keys[Int(position[y])]) ?? (photos[photoOf(x)].path < photos[photoOf(y)].path)
        }, distance: distance)
    }
}

/// What `Grouper.isBetterCentre` compares of a photo before the paths themselves.
struct CentreKey {
    /// Plain borders as wide at both ends of an axis (`KeeperPolicy.hasAddedBorders`): a mat
    /// or a frame added to a copy, more pixels and no more of the picture.
    let addedBorders: Bool
    let pixels: Int
    let fileSize: Int64
    let sharpness: Double
    let pathLength: Int

    init(_ photo: GroupingPhoto) {
        addedBorders = KeeperPolicy.hasAddedBorders(photo)
        pixels = photo.width * photo.height
        fileSize = photo.fileSize
        sharpness = photo.sharpness
        pathLength = photo.path.count
    }

    /// Whether this photo is the better centre; nil when the two tie on everything but the
    /// path's characters, which then decide.
    func isBetter(than other: CentreKey) -> Bool? {
        if addedBorders != other.addedBorders { return !addedBorders }
        if pixels != other.pixels { return pixels > other.pixels }
        if fileSize != other.fileSize { return fileSize > other.fileSize }
        if sharpness != other.sharpness { return sharpness > other.sharpness }
        if pathLength != other.pathLength { return pathLength < other.pathLength }
        return nil
    }
}
