import Analysis

extension Grouper {
    /// The neighbour pairs (`SimilarNeighbours`) that judging candidates left without a relation
    /// (`judged` lists those with one), whose photos no `near` cluster holds both of, and that
    /// `PairJudge` finds similar, as rows into `representatives`. In batches of `neighbourBatch`
    /// pairs, on `threads` threads of their own: each batch reads the layouts of its photos,
    /// screens the pairs on their whole frames (`PairJudge.neighbourFrames`), reads the window
    /// hashes of the photos of the pairs left, decides those (`PairJudge.similarShot`), and
    /// lets it all go. `progress` counts the pairs screened (step `neighbours`).
    ///
    /// A screened pair with a pairing within the default plan's reach (`pairingsWithinReach`:
    /// hashes within its radii) is one a smaller library's search would have paired whole: it
    /// is judged first as candidates are (`PairJudge.relation`), and listed in `near` when near,
    /// if the tables' probes miss one of those pairings (`probedPairings`): in a large library
    /// they can return a pair without the one pairing that confirms it (a million realistic
    /// rows: a crop 5 bits from a straightened frame, its 13 other pairings judged, none
    /// confirming), and the pair came back as a neighbour, similar.
    func similarNeighbours(_ photos: [GroupingPhoto], _ representatives: [Int], near: [[Int]], judged: some Sequence<(Int, Int)>,
                           features: (any GroupingFeatureSource)?, progress: GroupingProgress?,
                           shouldStop: @escaping @Sendable () -> Bool) throws -> (similar: [(Int, Int)], near: [(Int, Int)]) {
        var clusterOf = [Int32](repeating: -1, count: representatives.count)
        for (cluster, members) in near.enumerated() { for member in members { clusterOf[member] = Int32(cluster) } }
        let related = Set(judged.map(Self.pairKey))
        let pairs = SimilarNeighbours(window: judge.similarWindow).pairs(photos, representatives: representatives).filter { pair in
            !related.contains(Self.pairKey(pair)) && (clusterOf[pair.0] < 0 || clusterOf[pair.0] != clusterOf[pair.1])
        }.map(Self.pairKey)
        // The pairings a smaller library's search makes, and those this one's probes return.
        let judge = self.judge, plan = planWithThreshold, searched = plan.sized(for: representatives.count)
        let pieces = searched.pieces ?? MultiIndexHash.pieceCount(for: representatives.count)
        progress?.begin(.neighbours, total: pairs.count)
        if shouldStop() { throw CancellationError() }
        var keys: [(key: UInt64, near: Bool)] = []
        var start = 0
        while start < pairs.count {
            let batch = Array(pairs[start..<min(pairs.count, start + neighbourBatch)])
            let layouts = try features.map { features in try parallelRead(Self.ids(of: batch, photos, representatives), shouldStop: shouldStop, features.layouts) }
            let screened: [(key: UInt64, frames: Float)] = try run(batch, progress: progress, shouldStop: shouldStop) { keys, found in
                // A photo meets its next eight or so in the folder: room for their frames.
                var cache = LayoutCellCache(capacity: 32)
                for key in keys {
                    let rows = Self.rows(key)
                    let a = Self.subject(rows.0, photos, representatives, layouts), b = Self.subject(rows.1, photos, representatives, layouts)
                    if let frames = judge.neighbourFrames(a, b, rows: rows, cache: &cache) {
                        found.append((key: key, frames: frames))
                    }
                }
            }
            let windows = try features.map { features in
                try parallelRead(Self.ids(of: screened.map(\.key), photos, representatives), shouldStop: shouldStop, features.windowHashes)
            }
            keys += try run(screened, progress: nil, shouldStop: shouldStop) { screened, found in
                // A photo's frame and windows, for the pairs after it that share it.
                var cache = LayoutCellCache(capacity: 64)
                for (key, frames) in screened {
                    let rows = Self.rows(key)
                    var a = Self.subject(rows.0, photos, representatives, layouts), b = Self.subject(rows.1, photos, representatives, layouts)
                    if a.windowPHashes.isEmpty, let held = windows?[a.id] { a.windowPHashes = held }
                    if b.windowPHashes.isEmpty, let held = windows?[b.id] { b.windowPHashes = held }
                    // Judged on the pairings within reach only when the probes miss one of
                    // them that could confirm the pair (one within its limit, or one registration
                    // starts from without a fixed window: a straightened frame, or the whole
                    // frames of a crop of one side): otherwise search handed the judge all it needed.
                    let reach = plan.pairingsWithinReach(a, b)
                    let missed = reach.contains { pairing in
                        !searched.returns(pairing, a, b, pieces: pieces)
                            && (PairJudge.startsRegistration(pairing, a, b) || judge.confirms(a, b, pairing, rows: rows, cache: &cache))
                    }
                    if missed, judge.relation(a, b, pairings: reach, rows: rows, cache: &cache) == .near {
                        found.append((key, true))
                    } else if judge.similarShot(a, b, frameDifference: frames, rows: rows, cache: &cache) {
                        found.append((key, false))
                    }
                }
            }
            start += batch.count
        }
        // In index order, whatever order the threads finished in.
        keys.sort { $0.key < $1.key }
        func listed(near: Bool) -> [(Int, Int)] { keys.filter { $0.near == near }.map { (Int($0.key >> 32), Int($0.key & 0xFFFF_FFFF)) } }
        return (listed(near: false), listed(near: true))
    }

    /// Neighbour pairs judged in one batch: at most about 130,000 photos' layouts (150 MB) and
    /// window hashes (60 MB) held at once, beside what grouping holds at a million photos.
    var neighbourBatch: Int { 65_536 }

    /// `body` over `items` in chunks on `threads` threads, what it found in all; `progress`
    /// counts the items done.
    private func run<Item: Sendable, Found: Sendable>(_ items: [Item], progress: GroupingProgress?, shouldStop: @escaping @Sendable () -> Bool,
                                                      _ body: @escaping @Sendable (ArraySlice<Item>, inout [Found]) -> Void) throws -> [Found] {
        let parts = ParallelChunks.run(count: items.count, threads: threads, chunk: 256, shouldStop: shouldStop,
                                       progress: { progress?.advance(by: $0) }, initial: { [Found]() }) { range, found in
            body(items[range], &found)
        }
        if shouldStop() { throw CancellationError() }
        return Array(parts.joined())
    }

    private static func rows(_ key: UInt64) -> (Int32, Int32) { (Int32(key >> 32), Int32(key & 0xFFFF_FFFF)) }

    private static func ids(of keys: [UInt64], _ photos: [GroupingPhoto], _ representatives: [Int]) -> [Int64] {
        Array(Set(keys.flatMap { key in [photos[representatives[Int(key >> 32)]].id, photos[representatives[Int(key & 0xFFFF_FFFF)]].id] }))
    }

    /// Row `row` of `representatives` with its layout from `layouts` (read for a batch: the
    /// store's rows come without it), for the judge.
    static func subject(_ row: Int32, _ photos: [GroupingPhoto], _ representatives: [Int], _ layouts: [Int64: PhotoLayout]?) -> GroupingPhoto {
        var photo = photos[representatives[Int(row)]]
        if let layout = layouts?[photo.id] {
            photo.thumbnail = layout.thumbnail
            photo.chroma = layout.chroma
            photo.detail = layout.detail
        }
        return photo
    }

    /// The key of a pair of rows (as `pairKey` of a candidate).
    static func pairKey(_ pair: (Int, Int)) -> UInt64 {
        UInt64(UInt32(min(pair.0, pair.1))) << 32 | UInt64(UInt32(max(pair.0, pair.1)))
    }
}
