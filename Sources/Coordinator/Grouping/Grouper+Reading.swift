import CMalloc

extension Grouper {
    /// `read` over `ids` in parts on `threads` threads, what it found merged: the layouts and
    /// window hashes a batch needs are read while both cores are free to read them. Read on the
    /// calling thread alone they were about a tenth of a million photos' grouping with the
    /// other core idle. A store on a `DatabasePool` reads the parts in parallel; one on a
    /// `DatabaseQueue` (tests) takes them in turn. The first error any part meets is thrown;
    /// `CancellationError` once `shouldStop` says so (asked between parts), since what was
    /// read is then partial. Before it reads, it hands back what earlier batches' reads freed
    /// (`returnFreedMemory`).
    func parallelRead<Value: Sendable>(_ ids: [Int64], shouldStop: @escaping @Sendable () -> Bool = { false },
                                       _ read: @escaping @Sendable ([Int64]) throws -> [Int64: Value]) throws -> [Int64: Value] {
        // Parts big enough that a query's cost is its rows, enough of them that a slow part
        // does not leave the other thread waiting long.
        let part = max(2_000, ids.count / (4 * max(1, threads)))
        guard threads > 1, ids.count > part else { return try read(ids) }
        Self.returnFreedMemory()
        // Each thread merges its parts as it reads them: one dictionary a thread.
        let parts = try readInParts(count: ids.count, part: part, shouldStop: shouldStop, initial: { [Int64: Value]() }) { values, range in
            values.merge(try read(Array(ids[range]))) { first, _ in first }
        }
        // Into the largest part: the fewest entries moved.
        guard let largest = parts.indices.max(by: { parts[$0].count < parts[$1].count }) else { return [:] }
        var merged = parts[largest]
        for index in parts.indices where index != largest { merged.merge(parts[index]) { first, _ in first } }
        return merged
    }
}

extension Grouper {
    /// The search's hashes of `ids` (`GroupingFeatureSource.candidateHashes`, the overlay
    /// windows held), read in parts on `threads` threads and put together in the order of
    /// `ids`. Read on grouping's thread alone, a million photos' took 4.4 s with the database
    /// in the page cache and 10.8 s without it, the other core idle (bench/RESULTS.md, "A
    /// million photos through the store"). Parts of `candidateHashesPart` ids or more, so that
    /// a small library reads in one.
    func candidateHashes(of ids: [Int64], plan: CandidatePlan, features: any GroupingFeatureSource,
                         shouldStop: @escaping @Sendable () -> Bool) throws -> CompactHashes {
        let part = max(Self.candidateHashesPart, (ids.count + 2 * threads - 1) / max(1, 2 * threads))
        guard threads > 1, ids.count > part else { return try features.candidateHashes(of: ids, plan: plan, holdingCropWindows: false) }
        let parts = try readInParts(count: ids.count, part: part, shouldStop: shouldStop,
                                    initial: { [(start: Int, hashes: CompactHashes)]() }) { found, range in
            found.append((range.lowerBound, try features.candidateHashes(of: Array(ids[range]), plan: plan, holdingCropWindows: false)))
        }
        var hashes = CompactHashes(plan: plan, holdingCropWindows: false)
        hashes.reserve(ids.count)
        for part in parts.joined().sorted(by: { $0.start < $1.start }) { hashes.append(contentsOf: part.hashes) }
        precondition(hashes.count == ids.count, "every part read")
        return hashes
    }

    /// The fewest ids a part of `candidateHashes(of:plan:features:shouldStop:)` reads.
    static let candidateHashesPart = 50_000

    /// `read` over `count` positions in parts of `part` on `threads` threads (`ParallelChunks`:
    /// call it from a thread that may block), each thread adding its parts to a value of its
    /// own (from `initial`); those values. The first error any part meets is thrown;
    /// `CancellationError` once `shouldStop` says so (asked between parts), since what was read
    /// is then partial.
    private func readInParts<Partial: Sendable>(count: Int, part: Int, shouldStop: @escaping @Sendable () -> Bool,
                                                initial: @escaping @Sendable () -> Partial,
                                                _ read: @escaping @Sendable (inout Partial, Range<Int>) throws -> Void) throws -> [Partial] {
        let threadsRead = ParallelChunks.run(count: count, threads: threads, chunk: part, shouldStop: shouldStop,
                                             initial: { PartsRead(value: initial()) }) { range, found in
            guard found.error == nil else { return }
            do {
                try read(&found.value, range)
            } catch {
                found.error = error
            }
        }
        if let error = threadsRead.lazy.compactMap({ $0.error }).first { throw error }
        if shouldStop() { throw CancellationError() }
        return threadsRead.map(\.value)
    }

    /// Hands the pages finished batches freed back to the system: before each split read, and
    /// once grouping is done. Each `ParallelChunks` run
    /// starts its helper thread anew, and glibc gives a new thread whichever of its arenas
    /// comes next: a batch's layouts, read on both threads, are freed into several arenas, and
    /// an arena gives back only what lies at its top. Without this the coordinator's RSS grew
    /// batch by batch through judging: the end-to-end library's first run peaked at 1,000 MiB
    /// (sampled every 0.25 s) against 575 MiB before its reads were split.
    static func returnFreedMemory() {
        _ = malloc_trim(0)
    }
}

/// What one thread of `Grouper.readInParts` read, or the error that stopped it.
private struct PartsRead<Partial: Sendable>: Sendable {
    var value: Partial
    var error: (any Error)?
}
