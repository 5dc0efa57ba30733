import Analysis
import Shared

/// Analyses photos the way DESIGN.md's worker section says: read and hash the bytes on the
/// fetch queue under the job's fetch timeout, then decode and compute features on the compute
/// queue. Async callers only ever await; no thread of the cooperative pool blocks.
struct PhotoPipeline: Sendable {
    let fetchQueue: BlockingQueue
    let computeQueue: BlockingQueue
    /// Photos between "fetch started" and "features done": bounds the bytes held in memory.
    let photosInFlight: ConcurrencyLimiter
    /// No decode of a size-checked photo takes this long; one that does is abandoned (and
    /// counted toward recycling) rather than holding a compute thread forever.
    let computeTimeout: Duration = .seconds(120)

    let faults: FaultInjection
    let readPolicy: ReadPolicy
    let metrics: WorkerMetrics

    init(fetchThreads: Int, computeThreads: Int, readPolicy: ReadPolicy = ReadPolicy(), faults: FaultInjection = FaultInjection(environment: [:]),
         metrics: WorkerMetrics = WorkerMetrics()) {
        self.faults = faults
        self.readPolicy = readPolicy
        self.metrics = metrics
        fetchQueue = BlockingQueue(label: "cull.worker.fetch", limit: fetchThreads)
        computeQueue = BlockingQueue(label: "cull.worker.compute", limit: computeThreads)
        photosInFlight = ConcurrencyLimiter(limit: fetchThreads + computeThreads)
    }

    func analyze(_ photo: Cull_V1_PhotoRef, fetchTimeout: Duration, options: AnalysisOptions,
                 isCancelled: @Sendable () -> Bool) async -> Cull_V1_Outcome {
        let outcome = await analyzeUncounted(photo, fetchTimeout: fetchTimeout, options: options, isCancelled: isCancelled)
        metrics.finished(outcome)
        return outcome
    }

    private func analyzeUncounted(_ photo: Cull_V1_PhotoRef, fetchTimeout: Duration, options: AnalysisOptions,
                                  isCancelled: @Sendable () -> Bool) async -> Cull_V1_Outcome {
        var outcome = Cull_V1_Outcome()
        outcome.photoID = photo.photoID
        do {
            try await photosInFlight.acquire()
        } catch {
            outcome.failure = Cull_V1_Failure(AnalysisFailure(.internal, "\(photo.path): cancelled before it started"))
            return outcome
        }
        defer { photosInFlight.release() }
        // Checked after the wait for a permit: that is where a cancelled job's photos queue up.
        if isCancelled() {
            outcome.failure = Cull_V1_Failure(AnalysisFailure(.internal, "\(photo.path): job cancelled by the coordinator"))
            return outcome
        }

        let path = photo.path
        do {
            let faults = self.faults, policy = readPolicy
            // With previews, the head of the file first: a JPEG whose EXIF thumbnail is used
            // needs nothing else (docs/FEATURES.md, "Reading only what is needed"). Each read,
            // head or whole, runs on the fetch queue under the job's fetch timeout.
            if options.usePreviews, let features = try await analyzeFromHead(path, fetchTimeout: fetchTimeout, options: options) {
                outcome.features = features
                return outcome
            }
            let fetchStarted = ContinuousClock.now
            let fetched = try await fetchQueue.run(timeout: fetchTimeout, operation: "reading \(path)") {
                // The roots are checked here, on the fetch queue: resolving links is file system I/O.
                let target = try policy.resolve(path)
                faults.beforeRead(path)
                return try PhotoFetcher.fetch(path: target, maxFileBytes: options.maxFileBytes)
            }
            let analysisStarted = ContinuousClock.now
            metrics.fetched(in: analysisStarted - fetchStarted)
            let features = try await computeQueue.run(timeout: computeTimeout, operation: "decoding \(path)") {
                try PhotoAnalyzer.analyze(fetched.bytes, path: path, options: options)
            }
            metrics.analysed(in: ContinuousClock.now - analysisStarted)
            outcome.features = Cull_V1_Features(features, sha256: fetched.sha256, fileSize: fetched.fileSize)
        } catch let failure as AnalysisFailure {
            outcome.failure = Cull_V1_Failure(failure)
        } catch let timeout as TimeoutError where timeout.operation.hasPrefix("reading") {
            outcome.failure = Cull_V1_Failure(AnalysisFailure(
                .timeout, "\(path): reading did not finish within \(timeout.timeout.millisecondsDescription) (a hung network mount or a FIFO?); skipped"))
        } catch let timeout as TimeoutError {
            outcome.failure = Cull_V1_Failure(AnalysisFailure(
                .timeout, "\(path): decoding did not finish within \(timeout.timeout.millisecondsDescription); skipped"))
        } catch is CancellationError {
            outcome.failure = Cull_V1_Failure(AnalysisFailure(.internal, "\(path): the job was cancelled"))
        } catch {
            outcome.failure = Cull_V1_Failure(AnalysisFailure(.internal, "\(path): \(error)"))
        }
        return outcome
    }

    /// The features of a JPEG, raw or HEIF file analysed from the head of its file (docs/FEATURES.md,
    /// "Reading only what is needed"), nil when its preview is not used or the file is small:
    /// read it whole then. A head that ends before what the analysis needs (a JPEG's frame
    /// header, a raw's preview) is read again as long as `PhotoAnalyzer.analyzeHead` says, each
    /// time longer, up to the format's longest head. Every read on the fetch queue under the
    /// job's fetch timeout, every analysis on the compute queue.
    private func analyzeFromHead(_ path: String, fetchTimeout: Duration, options: AnalysisOptions) async throws -> Cull_V1_Features? {
        let faults = self.faults, policy = readPolicy
        var length = PhotoFetcher.headBytes
        while true {
            let fetchStarted = ContinuousClock.now
            let reading = length
            guard let head = try await fetchQueue.run(timeout: fetchTimeout, operation: "reading \(path)", {
                let target = try policy.resolve(path)
                faults.beforeRead(path)
                return try PhotoFetcher.fetchHead(path: target, maxFileBytes: options.maxFileBytes, length: reading)
            }) else { return nil }
            let analysisStarted = ContinuousClock.now
            metrics.fetched(in: analysisStarted - fetchStarted)
            let analysis = try await computeQueue.run(timeout: computeTimeout, operation: "decoding \(path)") {
                PhotoAnalyzer.analyzeHead(head.bytes, fileSize: head.fileSize, path: path, options: options)
            }
            switch analysis {
            case .features(let features):
                metrics.analysed(in: ContinuousClock.now - analysisStarted)
                return Cull_V1_Features(features, sha256: head.sha256, fileSize: head.fileSize, sha256IsHeadTail: true)
            case .needsAtLeast(let needed) where needed > length:
                // A little past what the head says is missing (one more segment's worth), within
                // the format's longest head (analyzeHead said so).
                length = needed + 64 * 1024
            case .needsRanges(let ranges):
                return try await analyzeRanges(path, head: head, ranges: ranges, fetchTimeout: fetchTimeout, options: options)
            default:
                return nil
            }
        }
    }

    /// The features of a HEIF photo from its thumbnail item's `ranges` (`PhotoAnalyzer.analyzeHead`
    /// named them), read on the fetch queue, decoded on the compute queue; nil when they do not
    /// decode (read it whole then).
    private func analyzeRanges(_ path: String, head: PhotoFetcher.Fetched, ranges: [Range<Int>], fetchTimeout: Duration,
                               options: AnalysisOptions) async throws -> Cull_V1_Features? {
        let faults = self.faults, policy = readPolicy
        let fetchStarted = ContinuousClock.now
        let pieces: [(offset: Int, bytes: [UInt8])] = ranges.isEmpty ? [] : try await fetchQueue.run(timeout: fetchTimeout, operation: "reading \(path)") {
            let target = try policy.resolve(path)
            faults.beforeRead(path)
            return try PhotoFetcher.fetchRanges(path: target, fileSize: head.fileSize, ranges: ranges, maxFileBytes: options.maxFileBytes)
        }
        let analysisStarted = ContinuousClock.now
        metrics.fetched(in: analysisStarted - fetchStarted)
        guard let features = try await computeQueue.run(timeout: computeTimeout, operation: "decoding \(path)", {
            PhotoAnalyzer.analyzeRanges(head: head.bytes, pieces: pieces, fileSize: head.fileSize, path: path, options: options)
        }) else { return nil }
        metrics.analysed(in: ContinuousClock.now - analysisStarted)
        return Cull_V1_Features(features, sha256: head.sha256, fileSize: head.fileSize, sha256IsHeadTail: true)
    }

    /// Runs every photo of a job concurrently (the limiters bound it) and collects one
    /// outcome per photo.
    func run(_ job: Cull_V1_Job, isCancelled: @escaping @Sendable () -> Bool) async -> Cull_V1_Result {
        let timeout = Duration.milliseconds(Int64(max(job.fetchTimeoutMs, 1)))
        let options = readPolicy.capped(AnalysisOptions(job.options))
        var result = Cull_V1_Result()
        result.jobID = job.jobID
        result.generation = job.generation
        result.attempt = job.attempt
        result.outcomes = await withTaskGroup(of: Cull_V1_Outcome.self) { group in
            for photo in job.photos {
                group.addTask {
                    await analyze(photo, fetchTimeout: timeout, options: options, isCancelled: isCancelled)
                }
            }
            var outcomes: [Cull_V1_Outcome] = []
            outcomes.reserveCapacity(job.photos.count)
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        return result
    }
}
