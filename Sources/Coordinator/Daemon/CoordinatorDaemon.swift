import Analysis
import CZeroMQ
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Synchronization

/// The coordinator: walks libraries, schedules jobs over ZeroMQ, stores fenced results in
/// SQLite and groups finished scans.
///
/// Threads: each ROUTER socket has its own thread (`SocketThread`); directory walks and
/// grouping run on `blockingQueue`; SQLite runs on GRDB's queues. The async code here only
/// awaits and makes short decisions under Mutexes.
final class CoordinatorDaemon: Service, Sendable {
    let configuration: CoordinatorConfiguration
    let store: CullStore
    let scheduler = Scheduler()
    let logger: Logger
    let coordinatorID: String
    /// Directory walks and path checks (blocking I/O).
    let blockingQueue = BlockingQueue(label: "cull.coordinator.walk", limit: 4)
    /// Grouping (CPU), one scan at a time per permit.
    let groupingQueue = BlockingQueue(label: "cull.coordinator.grouping", limit: 2)

    /// Peers sending garbage get a few log lines a minute, not one per message.
    let dropLog = LogThrottle()
    let dispatchBell = Doorbell()
    let resultBell = Doorbell()
    private let received = Mutex<[ReceivedResult]>([])
    let scanStarts: AsyncStream<ScanRecord>
    let scanStartsContinuation: AsyncStream<ScanRecord>.Continuation
    /// Scans being finalized, and those whose completion must be checked again when that ends.
    private let finalizing = Mutex<(running: Set<Int64>, again: Set<Int64>)>(([], []))
    /// Scans whose walk is under way in this process.
    let activeWalks = Mutex<Set<Int64>>([])
    let stopping = Atomic<Bool>(false)
    private let sockets = Mutex<(work: SocketThread?, control: SocketThread?)>((nil, nil))
    private let ready = Mutex<(endpoints: [String]?, waiters: [CheckedContinuation<[String], Never>])>((nil, []))

    init(configuration: CoordinatorConfiguration, store: CullStore, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.coordinatorID = "\(ProcessInfo.processInfo.hostName):\(getpid())"
        (scanStarts, scanStartsContinuation) = AsyncStream.makeStream(of: ScanRecord.self, bufferingPolicy: .bufferingNewest(256))
    }

    var workSocket: SocketThread? { sockets.withLock { $0.work } }

    /// Resumes once the sockets are bound, with the endpoints bound (work first), or with
    /// none if binding failed (`run()` then throws the reason).
    func boundEndpoints() async -> [String] {
        await withCheckedContinuation { continuation in
            let endpoints = ready.withLock { ready -> [String]? in
                if let resolved = ready.endpoints { return resolved }
                ready.waiters.append(continuation)
                return nil
            }
            if let endpoints { continuation.resume(returning: endpoints) }
        }
    }

    private func resolveBoundEndpoints(_ endpoints: [String]) {
        let waiters = ready.withLock { ready in
            ready.endpoints = endpoints
            defer { ready.waiters = [] }
            return ready.waiters
        }
        for waiter in waiters { waiter.resume(returning: endpoints) }
    }

    func run() async throws {
        let context = try ZMQContext()
        let work: SocketThread
        var control: SocketThread?
        do {
            work = try SocketThread(name: "cull.work", context: context, type: .router, inboxCapacity: 4096, logger: logger) { socket in
                try Self.configureRouter(socket)
                try socket.bind(configuration.workEndpoint)
            }
            if let endpoint = configuration.controlEndpoint {
                control = try SocketThread(name: "cull.control", context: context, type: .router, logger: logger) { socket in
                    try Self.configureRouter(socket)
                    try socket.bind(endpoint)
                }
            }
        } catch let error as ZMQError {
            resolveBoundEndpoints([])
            await Self.terminate(context)
            throw CoordinatorError(description: "cannot listen on \(error.operation.replacingOccurrences(of: "bind ", with: "")): \(error.message) (is another `cull serve` running? pass --work / --control)")
        }
        sockets.withLock { $0 = (work, control) }
        resolveBoundEndpoints(work.boundEndpoints + (control?.boundEndpoints ?? []))
        logger.info("listening", metadata: ["work": "\(work.boundEndpoints.joined())", "control": "\(control?.boundEndpoints.joined() ?? "-")"])

        try await recover()

        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                if let control { group.addTask { await self.controlLoop(control) } }
                group.addTask { await self.dispatchLoop(work) }
                group.addTask { await self.resultLoop() }
                group.addTask { await self.scanDriverLoop() }
                group.addTask { await self.tickLoop(work) }
                group.addTask { await self.heartbeatLoop(work) }
                group.addTask { await self.reconcileLoop() }
                // The work socket's inbox ends when the daemon shuts down; then every loop is
                // cancelled (their sleeps end at once).
                await self.workLoop(work)
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.logger.info("shutting down")
            Task { await self.stopLoops() }
        }
        await Self.terminate(context)
    }

    /// Ends every loop: sockets close (their inboxes finish), bells close.
    private func stopLoops() async {
        stopping.store(true, ordering: .relaxed)
        let (work, control) = sockets.withLock { $0 }
        if let work {
            // Tell workers we are going; they will reconnect to whoever listens next.
            for worker in scheduler.workers() {
                var goodbye = Cull_V1_Disconnect()
                goodbye.reason = "coordinator shutting down"
                goodbye.retry = true
                work.send([worker.routingID] + WireCodec.encode(.disconnect(goodbye)))
            }
            await work.shutdown()
        }
        await control?.shutdown()
        dispatchBell.close()
        resultBell.close()
        scanStartsContinuation.finish()
    }

    /// Stops the daemon from inside (used by `cull run`).
    func shutdown() async { await stopLoops() }

    private static func configureRouter(_ socket: ZMQSocket) throws {
        // Sends to a peer that is gone fail at once instead of vanishing silently.
        try socket.setOption(ZMQ_ROUTER_MANDATORY, Int32(1))
        // A worker that reconnects with the same id takes over its old routing entry.
        try socket.setOption(ZMQ_ROUTER_HANDOVER, Int32(1))
        try socket.setOption(ZMQ_MAXMSGSIZE, WireProtocol.maxMessageBytes)
        try socket.setOption(ZMQ_LINGER, Int32(500))
        try socket.setOption(ZMQ_SNDHWM, Int32(10_000))
        try socket.setOption(ZMQ_RCVHWM, Int32(10_000))
    }

    /// zmq_ctx_term blocks until every socket is closed: it gets a thread of its own.
    static func terminate(_ context: ZMQContext) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                context.terminate()
                continuation.resume()
            }
        }
    }

    // MARK: recovery

    /// After a restart: jobs of running scans are queued again (new attempt tokens), walks
    /// that had not finished start over (stored files are skipped), finished ones are checked.
    private func recover() async throws {
        let jobs = try await store.unfinishedJobs()
        scheduler.enqueue(jobs)
        let running = try await store.runningScans()
        for scan in running {
            if scan.walkComplete {
                Task { await self.checkCompletion([scan.id]) }
            } else {
                scanStartsContinuation.yield(scan)
            }
        }
        if !running.isEmpty {
            logger.info("resuming scans", metadata: ["scans": "\(running.map(\.id))", "jobs": "\(jobs.count)"])
        }
    }

    // MARK: results

    func resultReceived(_ result: ReceivedResult) {
        received.withLock { $0.append(result) }
        resultBell.ring()
    }

    /// Stores results in batches: everything that arrived since the last write goes into one
    /// transaction.
    private func resultLoop() async {
        for await _ in resultBell.rings {
            let batch = received.withLock { buffer -> [ReceivedResult] in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            guard !batch.isEmpty else { continue }
            do {
                let tally = try await store.applyResults(batch)
                scheduler.count { counters in
                    counters.resultsApplied += UInt64(tally.applied)
                    counters.resultsStale += UInt64(tally.stale)
                    counters.resultsDuplicate += UInt64(tally.duplicate)
                }
                if tally.stale + tally.duplicate > 0 {
                    logger.info("dropped results that no longer match", metadata: ["stale": "\(tally.stale)", "duplicate": "\(tally.duplicate)"])
                }
                await checkCompletion(tally.scansToCheck)
            } catch {
                // The results are not lost for good: their jobs stay dispatched in SQLite and
                // come back through the job deadline with a new attempt.
                logger.error("could not store results; their jobs will be retried", metadata: ["error": "\(describe(error))"])
                await takeBack(batch.map(\.result.jobID), reason: .workerLost, why: "its result could not be stored")
            }
            dispatchBell.ring()
        }
    }

    func describe(_ error: any Error) -> String {
        if let error = error as? any DatabaseErrorDescribable { return error.describe(path: store.path) }
        return "\(error)"
    }

    // MARK: completion

    /// Groups each scan whose every photo has an outcome, if it is still current. A check asked
    /// for while one is running for the same scan is not lost: that one runs again.
    func checkCompletion(_ scanIDs: Set<Int64>) async {
        for scanID in scanIDs {
            let claimed = finalizing.withLock { state -> Bool in
                if state.running.contains(scanID) {
                    state.again.insert(scanID)
                    return false
                }
                state.running.insert(scanID)
                return true
            }
            guard claimed else { continue }
            var repeatCheck = true
            while repeatCheck {
                await finalizeIfComplete(scanID)
                repeatCheck = finalizing.withLock { state in
                    if state.again.remove(scanID) != nil { return true }
                    state.running.remove(scanID)
                    return false
                }
            }
        }
    }

    private func finalizeIfComplete(_ scanID: Int64) async {
        do {
            guard try await store.isComplete(scanID: scanID), let scan = try await store.scan(id: scanID) else { return }
            let photos = try await store.groupingInput(scan: scan)
            let grouper = Grouper(threshold: configuration.nearThreshold)
            let groups = try await groupingQueue.run(timeout: configuration.groupingTimeout, operation: "grouping scan \(scanID)") {
                grouper.groups(of: photos)
            }
            if try await store.finalize(scan: scan, groups: groups) {
                logger.info("scan done", metadata: ["scan": "\(scanID)", "photos": "\(scan.total)", "failed": "\(scan.failed)", "groups": "\(groups.count)"])
            } else {
                logger.info("scan ended before it could finalize; its groups were not stored", metadata: ["scan": "\(scanID)"])
            }
        } catch {
            // The reconciliation sweep asks again in a few seconds.
            logger.error("could not finalize scan; will retry", metadata: ["scan": "\(scanID)", "error": "\(describe(error))"])
        }
    }
}

struct CoordinatorError: Error, CustomStringConvertible {
    let description: String
}

/// Errors that can say what happened to the database in words.
protocol DatabaseErrorDescribable {
    func describe(path: String) -> String
}
