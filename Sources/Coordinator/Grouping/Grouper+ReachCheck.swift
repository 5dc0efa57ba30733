import Analysis

extension Grouper {
    /// Near pairs judged again on every pairing within the default plan's reach
    /// (`CandidatePlan.pairingsWithinReach`: every crop window, every hash within its radius),
    /// when search left out one that lines the photos up within its limit: so that a pair's
    /// verdict does not depend on the size of the library it is in.
    ///
    /// The judge decides on the pairings search returned, in order, and a pairing that shows
    /// what differs between two shots can be one the tables' probes miss in a large library (at
    /// 4 pieces, up to about 320,000 photos, a probe is exact to 7 bits of the 8 or 10 searched;
    /// at 3 pieces, to 5, and only 44 of the 60 crop windows are probed). The hard set on its own
    /// is grouped with tables of 6 pieces, exact to the radius; grouped with the tables of a
    /// 300,000-photo library, a zoomed burst frame became a near duplicate of its scene (precision
    /// 0.983 → 0.974), judged on the windows the probes returned (bench/RESULTS.md, "One verdict
    /// at any library size").
    ///
    /// Only near verdicts are judged again: they are the ones that suggest a removal, and few
    /// (156,537 of a million realistic rows' pairs). A pairing past its limit only says how far
    /// apart the photos are, so a pair is judged again only when a pairing search did not return
    /// comes within it (about 15,000 of those pairs; 99 were no longer near), and then on its
    /// pairings alone (`PairJudge.directRelation`): a near pair with no verdict there was
    /// confirmed by registration, which stands. Two plain graphics are not checked (their
    /// verdict is their colours where they line up best): the end-to-end library's 220,000
    /// generated graphics regrouped in 62 s with them checked, 54 s without, 48 s unchecked. `near` holds each pair's key and the pairings
    /// it was judged on, as seen from its first row.
    ///
    /// Pairs left without a verdict that came close (`close`, `PairJudge.cameClose`: their best
    /// pairing within registration's reach, and registration from it found no fit; listed only
    /// for photos of other pixel counts) are registered again from each pairing within reach
    /// that search left out and registration starts from whatever its difference
    /// (`PairJudge.startsRegistration`: a straightened frame, or the whole frames of a photo and
    /// a crop of one side) when the photo looked for is the smaller (`PairJudge.copyIsSmaller`);
    /// near if one fits. The fixed pairings had their say (folder neighbours, far fewer, are
    /// judged again whole: `Grouper.similarNeighbours`). A million realistic rows: a 3% crop of
    /// gravel 5 bits from its photo's straightened frame, which the probes leave out, its 7
    /// other pairings judged and none confirming (docs/FEATURES.md, "Close pairs registered from
    /// the start search left out", has the numbers and what was tried).
    func reachCheck(_ near: [(key: UInt64, pairings: [Pairing])], close: [RecheckedPair] = [], _ photos: [GroupingPhoto], _ representatives: [Int],
                    layouts: [Int64: PhotoLayout]?, features: (any GroupingFeatureSource)?,
                    shouldStop: @escaping @Sendable () -> Bool) throws -> (near: [UInt64], similar: [UInt64], apart: [UInt64]) {
        let pairs = near.map { RecheckedPair(key: $0.key, pairings: $0.pairings, registrationLimit: nil) } + close
        var checked: (near: [UInt64], similar: [UInt64], apart: [UInt64]) = ([], [], [])
        var start = 0
        while start < pairs.count {
            let part = try reachCheckPart(pairs[start..<min(pairs.count, start + reachCheckBatch)], photos, representatives, layouts: layouts,
                                      features: features, shouldStop: shouldStop)
            checked.near += part.near
            checked.similar += part.similar
            checked.apart += part.apart
            start += reachCheckBatch
        }
        return checked
    }

    /// A pair `reachCheck` judges again: its key, the pairings it was judged on (as seen from
    /// its first row), and for a pair left without a verdict, the difference registration had
    /// to fit within (`PairJudge.registrationLimit`; nil for a near pair).
    struct RecheckedPair: Sendable {
        var key: UInt64
        var pairings: [Pairing]
        var registrationLimit: Float?
    }

    /// Near pairs checked in one part, whose photos' window hashes are read together: at most
    /// 65,536 photos' (about 40 MB with the dictionary), beside the judging batch's layouts.
    /// A million realistic rows have about 8,000 near pairs a judging batch; a library of
    /// look-alike graphics can have as many as the batch's candidates.
    var reachCheckBatch: Int { 32_768 }

    private func reachCheckPart(_ near: ArraySlice<RecheckedPair>, _ photos: [GroupingPhoto], _ representatives: [Int],
                                layouts: [Int64: PhotoLayout]?, features: (any GroupingFeatureSource)?,
                                shouldStop: @escaping @Sendable () -> Bool) throws -> (near: [UInt64], similar: [UInt64], apart: [UInt64]) {
        var ids = Set<Int64>()
        for key in near.lazy.map(\.key) {
            ids.insert(photos[representatives[Int(key >> 32)]].id)
            ids.insert(photos[representatives[Int(key & 0xFFFF_FFFF)]].id)
        }
        let windows = try features.map { features in try parallelRead(Array(ids), shouldStop: shouldStop, features.windowHashes) }
        let plan = planWithThreshold, judge = self.judge
        let parts = ParallelChunks.run(count: near.count, threads: threads, chunk: 1024, shouldStop: shouldStop,
                                       initial: { (near: [UInt64](), similar: [UInt64](), apart: [UInt64](), cache: LayoutCellCache(rows: representatives.count)) }) { range, found in
            for pair in near[near.startIndex + range.lowerBound..<near.startIndex + range.upperBound] {
                let key = pair.key, judged = pair.pairings
                let rows = (Int32(key >> 32), Int32(key & 0xFFFF_FFFF))
                var a = Self.subject(rows.0, photos, representatives, layouts), b = Self.subject(rows.1, photos, representatives, layouts)
                if a.windowPHashes.isEmpty, let held = windows?[a.id] { a.windowPHashes = held }
                if b.windowPHashes.isEmpty, let held = windows?[b.id] { b.windowPHashes = held }
                // Two plain graphics are judged on their colours where they line up best, not
                // on a change of a scene (`PairJudge.plainGraphicsVerdict`): not checked.
                if found.cache.isPlainGraphic(row: rows.0, make: { PairJudge.isPlainGraphic(a) })
                    && found.cache.isPlainGraphic(row: rows.1, make: { PairJudge.isPlainGraphic(b) }) {
                    if pair.registrationLimit == nil { found.near.append(key) }
                    continue
                }
                if let within = pair.registrationLimit {
                    // Registration from the starts search left out: the fixed pairings had
                    // their say, and registration from the best of them found no fit.
                    let reach = plan.pairingsWithinReach(a, b)
                    if reach.contains(where: { !judged.contains($0) && PairJudge.startsRegistration($0, a, b) && PairJudge.copyIsSmaller($0, a, b)
                                               && judge.registered(a, b, from: $0, within: within, rows: rows, cache: &found.cache) }) {
                        found.near.append(key)
                    }
                    continue
                }
                // Pairings past their limit only say how far apart the photos are: a verdict can
                // change only through one within it that search did not return.
                let reach = plan.pairingsWithinReach(a, b)
                guard reach.contains(where: { pairing in
                    !judged.contains(pairing) && !PairJudge.throughStraightened(pairing)
                        && judge.confirms(a, b, pairing, rows: rows, cache: &found.cache)
                }) else {
                    found.near.append(key)
                    continue
                }
                var best: PairJudge.BestPairing?
                switch judge.directRelation(a, b, pairings: reach, rows: rows, cache: &found.cache, best: &best) {
                case .near?, nil: found.near.append(key)
                case .similar?:
                    // A straightened copy is near though its fixed pairings show the turn as a
                    // change (rules 29), here as in `PairJudge.relation`.
                    if let best, judge.straightenedCopy(a, b, pairings: reach, best: best, rows: rows, cache: &found.cache) {
                        found.near.append(key)
                    } else {
                        found.similar.append(key)
                    }
                case .distinct?: found.apart.append(key)
                case .otherShot?:
                    found.similar.append(key)
                    found.apart.append(key)
                }
            }
        }
        if shouldStop() { throw CancellationError() }
        return (parts.flatMap(\.near), parts.flatMap(\.similar), parts.flatMap(\.apart))
    }
}
