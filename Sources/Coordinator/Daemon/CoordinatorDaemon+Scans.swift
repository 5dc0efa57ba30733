import Foundation
import Shared

/// Starting, walking, cancelling and superseding scans.
extension CoordinatorDaemon {
    /// Starts a scan of `root` (an existing directory), superseding a running scan of it.
    func startScan(root: String) async throws -> (scan: ScanRecord, superseded: [Int64]) {
        let root = try await validatedRoot(root)
        let (scan, superseded) = try await store.startScan(root: root)
        for old in superseded { stopJobs(ofScan: old, reason: "superseded by scan \(scan.id)") }
        logger.info("scan started", metadata: ["scan": "\(scan.id)", "root": "\(root)", "generation": "\(scan.generation)"])
        scanStartsContinuation.yield(scan)
        return (scan, superseded)
    }

    /// Cancels a running scan: its queued jobs are dropped, in-flight ones cancelled at their
    /// workers, and late results meet the fence. Returns the scan's state afterwards.
    func cancelScan(id: Int64) async throws -> (state: ScanState, cancelledNow: Bool)? {
        let outcome = try await store.cancelScan(id: id)
        if outcome?.cancelledNow == true {
            stopJobs(ofScan: id, reason: "scan \(id) cancelled")
            logger.info("scan cancelled", metadata: ["scan": "\(id)"])
        }
        return outcome
    }

    private func stopJobs(ofScan scanID: Int64, reason: String) {
        let byWorker = scheduler.dropJobs(ofScan: scanID)
        guard let socket = workSocket else { return }
        for (workerID, jobs) in byWorker {
            guard let routingID = scheduler.routingID(of: workerID) else { continue }
            var cancel = Cull_V1_CancelJobs()
            cancel.jobIds = jobs.map(\.jobID)
            cancel.attempts = jobs.map(\.attempt)
            cancel.reason = reason
            socket.send([routingID] + WireCodec.encode(.cancelJobs(cancel)))
        }
    }

    /// The root as an absolute, existing directory, with no trailing slash.
    private func validatedRoot(_ root: String) async throws -> String {
        guard root.hasPrefix("/") else {
            throw CoordinatorError(description: "\(root): the library path must be absolute")
        }
        var path = (root as NSString).standardizingPath
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let checked = path
        // stat can hang on a dead mount: it runs on the blocking queue, with a deadline.
        let isDirectory = try await blockingQueue.run(timeout: .seconds(30), operation: "checking \(checked)") {
            var info = stat()
            return stat(checked, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
        guard isDirectory else {
            throw CoordinatorError(description: "\(checked): no such directory (check the path; the coordinator must see it as its workers do)")
        }
        return checked
    }

    func scanDriverLoop() async {
        await withDiscardingTaskGroup { group in
            for await scan in scanStarts {
                group.addTask { await self.walk(scan) }
            }
        }
    }

    /// Walks a scan's library a batch at a time: each batch is stored and its jobs queued
    /// while the walk goes on. Stops quietly when the scan stops being current.
    private func walk(_ scan: ScanRecord) async {
        guard activeWalks.withLock({ $0.insert(scan.id).inserted }) else { return }
        defer { _ = activeWalks.withLock { $0.remove(scan.id) } }
        let walker = LibraryWalker(root: scan.root)
        let batchSize = configuration.walkBatch
        do {
            while true {
                // Backpressure: the walk waits while plenty of work is queued, so memory stays
                // bounded however large the library. On shutdown it stops where it is; the next
                // start walks again and skips what is stored.
                while scheduler.queuedCount >= configuration.maxQueuedJobs, !stopping.load(ordering: .relaxed) {
                    try await Task.sleep(for: .milliseconds(100))
                }
                if stopping.load(ordering: .relaxed) { return }
                let files = try await blockingQueue.run(timeout: configuration.walkStepTimeout, operation: "reading folders under \(scan.root)") {
                    walker.next(batchSize)
                }
                if files.isEmpty { break }
                let jobs = try await store.recordWalkBatch(scan: scan, files: files, jobSize: configuration.jobSize)
                scheduler.enqueue(jobs)
                dispatchBell.ring()
            }
            for (directory, reason) in walker.unreadableDirectories {
                logger.warning("could not read a folder; its photos are not in this scan", metadata: ["folder": "\(directory)", "reason": "\(reason)"])
            }
            try await store.markWalkComplete(scan: scan)
            logger.info("walk complete", metadata: ["scan": "\(scan.id)"])
            await checkCompletion([scan.id])
        } catch is ScanNotCurrent {
            logger.info("walk stopped: the scan is no longer current", metadata: ["scan": "\(scan.id)"])
        } catch {
            let message = "the walk of \(scan.root) failed: \(describe(error))"
            logger.error("scan failed", metadata: ["scan": "\(scan.id)", "error": "\(message)"])
            try? await store.failScan(id: scan.id, error: message)
            stopJobs(ofScan: scan.id, reason: "scan \(scan.id) failed")
        }
    }

    /// Waits until a scan reaches a terminal state (for `cull run`), polling SQLite. `check`
    /// can end the wait with an error (the daemon died, no worker is left).
    func waitForScan(id: Int64, check: () -> (any Error)? = { nil }, progress: (ScanRecord) -> Void = { _ in }) async throws -> ScanRecord {
        while true {
            guard let scan = try await store.scan(id: id) else {
                throw CoordinatorError(description: "scan \(id) does not exist")
            }
            progress(scan)
            if let error = check() { throw error }
            if scan.state.isTerminal { return scan }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
