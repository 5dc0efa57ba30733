import Analysis
import Shared

/// The worker's PhotoPipeline (Sources/Worker/PhotoPipeline.swift) without the wire, for
/// measuring analysis in process: read and SHA-256 on a fetch `BlockingQueue`, decode and
/// features on a compute `BlockingQueue`, each under the worker's timeouts, with photos in
/// flight bounded by fetch + compute threads as the worker bounds them. Async code only awaits.
/// It cannot use PhotoPipeline itself: that lives in the `cull-worker` executable.
struct InProcessPipeline: Sendable {
    let fetchQueue: BlockingQueue
    let computeQueue: BlockingQueue
    let photosInFlight: ConcurrencyLimiter

    init(fetchThreads: Int, computeThreads: Int) {
        fetchQueue = BlockingQueue(label: "cull.bench.fetch", limit: fetchThreads)
        computeQueue = BlockingQueue(label: "cull.bench.compute", limit: computeThreads)
        photosInFlight = ConcurrencyLimiter(limit: fetchThreads + computeThreads)
    }

    /// Analyses every photo, all at once as a worker's job does (the limiters bound it);
    /// returns the failures, one line each.
    func analyzeAll(_ paths: [String], options: AnalysisOptions) async -> [String] {
        await withTaskGroup(of: String?.self) { group in
            for path in paths {
                group.addTask {
                    do {
                        _ = try await analyze(path, options: options)
                        return nil
                    } catch {
                        return "\(path): \(error)"
                    }
                }
            }
            var failures: [String] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures
        }
    }

    private func analyze(_ path: String, options: AnalysisOptions) async throws -> PhotoFeatures {
        try await photosInFlight.withPermit {
            let fetched = try await fetchQueue.run(timeout: .seconds(30), operation: "reading \(path)") {
                try PhotoFetcher.fetch(path: path, maxFileBytes: options.maxFileBytes)
            }
            return try await computeQueue.run(timeout: .seconds(120), operation: "decoding \(path)") {
                try PhotoAnalyzer.analyze(fetched.bytes, path: path, options: options)
            }
        }
    }
}
