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
        let parts = ParallelChunks.run(count: ids.count, threads: threads, chunk: part, shouldStop: shouldStop,
                                       initial: { PartRead<Value>() }) { range, found in
            guard found.error == nil else { return }
            do {
                found.values.merge(try read(Array(ids[range]))) { first, _ in first }
            } catch {
                found.error = error
            }
        }
        if let error = parts.lazy.compactMap({ $0.error }).first { throw error }
        if shouldStop() { throw CancellationError() }
        // Into the largest part: the fewest entries moved.
        guard let largest = parts.indices.max(by: { parts[$0].values.count < parts[$1].values.count }) else { return [:] }
        var merged = parts[largest].values
        for index in parts.indices where index != largest { merged.merge(parts[index].values) { first, _ in first } }
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
        let parts = ParallelChunks.run(count: ids.count, threads: threads, chunk: part, shouldStop: shouldStop,
                                       initial: { HashParts() }) { range, found in
            guard found.error == nil else { return }
            do {
                found.parts.append((range.lowerBound, try features.candidateHashes(of: Array(ids[range]), plan: plan, holdingCropWindows: false)))
            } catch {
                found.error = error
            }
        }
        if let error = parts.lazy.compactMap({ $0.error }).first { throw error }
        if shouldStop() { throw CancellationError() }
        let ordered = parts.flatMap(\.parts).sorted { $0.start < $1.start }
        var hashes = CompactHashes(plan: plan, holdingCropWindows: false)
        hashes.reserve(ids.count)
        for part in ordered { hashes.append(contentsOf: part.hashes) }
        precondition(hashes.count == ids.count, "every part read")
        return hashes
    }

    /// The fewest ids a part of `candidateHashes(of:plan:features:shouldStop:)` reads.
    static let candidateHashesPart = 50_000

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

/// The parts of the search's hashes one thread of `Grouper.candidateHashes` read (each with
/// the position of its first id), or the error that stopped it.
private struct HashParts: Sendable {
    var parts: [(start: Int, hashes: CompactHashes)] = []
    var error: (any Error)?
}

/// What one thread of `Grouper.parallelRead` read, or the error that stopped it.
private struct PartRead<Value: Sendable>: Sendable {
    var values: [Int64: Value] = [:]
    var error: (any Error)?
}
