import Analysis
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import Shared
import Synchronization

/// The coordinator: what its services share, and the actions they take.
///
/// It runs as a group of services (`services`), one per long-running loop, in one
/// `ServiceGroup`: the result writer, the finalizer, the work channel, the control channel,
/// the dispatcher, the deadline monitor, the heartbeat sender, the reconciler and the walker.
/// Each stops on graceful shutdown; the group stops them in reverse order, so the walk and the
/// sweeps stop first, then dispatching, then the channels (workers are told goodbye), then
/// grouping, and the result writer last, after it has stored what it holds.
///
/// It talks to workers and clients through `MessageTransport`s: ZeroMQ sockets on their own
/// threads in production (`CoordinatorSockets`), in-process transports in tests. Threads:
/// directory walks and path checks run on `blockingQueue`, grouping on `groupingQueue`, SQLite
/// on GRDB's queues; the async code here only awaits and makes short decisions under Mutexes.
final class Coordinator: Sendable {
    let configuration: CoordinatorConfiguration
    let store: CullStore
    let scheduler: Scheduler
    /// Deadlines and silence are judged by this clock (tests advance it by hand).
    var clock: CoordinatorClock { scheduler.clock }
    let logger: Logger
    let coordinatorID: String
    let work: any MessageTransport
    let control: (any MessageTransport)?
    /// Directory walks and path checks (blocking I/O).
    let blockingQueue = BlockingQueue(label: "cull.coordinator.walk", limit: 4)
    /// Grouping (CPU, on threads of its own: `ParallelChunks`): one scan at a time.
    let groupingQueue = BlockingQueue(label: "cull.coordinator.grouping", limit: 1)
    /// Groupings whose work is still running (one that timed out winds down within a chunk).
    let groupingsRunning = SharedCounter()
    /// The grouping running now and how far it is (`cull status`).
    let groupingBoard = GroupingBoard()
    /// What `cull serve --metrics` serves.
    let metrics = CoordinatorMetrics()

    /// Peers sending garbage get a few log lines a minute, not one per message.
    let dropLog = LogThrottle()
    let dispatchBell = Doorbell()
    let results: ResultBuffer
    let scanStarts: AsyncStream<ScanRecord>
    let scanStartsContinuation: AsyncStream<ScanRecord>.Continuation
    /// Scans whose completion the `Finalizer` must check.
    let completionChecks = CompletionChecks()
    /// Scans whose walk is under way in this process.
    let activeWalks = Mutex<Set<Int64>>([])

    /// - Parameters:
    ///   - host: this machine's name, for the coordinator id workers see (`HostName.current`:
    ///     the kernel's name, never a DNS lookup that could block).
    init(configuration: CoordinatorConfiguration, store: CullStore, work: any MessageTransport,
         control: (any MessageTransport)?, host: String, logger: Logger, clock: CoordinatorClock = CoordinatorClock()) {
        self.configuration = configuration
        self.scheduler = Scheduler(clock: clock, probation: Probation(ceiling: configuration.jobDeadline))
        self.store = store
        self.work = work
        self.control = control
        self.logger = logger
        self.coordinatorID = "\(host):\(getpid())"
        self.results = ResultBuffer(capacity: configuration.resultBufferCapacity)
        (scanStarts, scanStartsContinuation) = AsyncStream.makeStream(of: ScanRecord.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// Every long-running loop as a service, in start order (the group stops them in reverse).
    var services: [any Service] {
        var services: [any Service] = [ResultWriter(self), Finalizer(self), WorkChannel(self)]
        if let control { services.append(ControlChannel(self, transport: control)) }
        services += [Dispatcher(self), DeadlineMonitor(self), HeartbeatSender(self), Reconciler(self), WalkService(self)]
        return services
    }

    /// The service group that runs the coordinator, plus `extra` services started after it
    /// (and so stopped before it). Graceful shutdown has a deadline (rule 3): past it the
    /// group cancels what is left.
    func serviceGroup(extra: [ServiceGroupConfiguration.ServiceConfiguration] = [], signals: [UnixSignal]) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) } + extra,
            gracefulShutdownSignals: signals,
            cancellationSignals: [],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = self.configuration.gracefulShutdownLimit
        configuration.maximumCancellationDuration = .seconds(5)
        return ServiceGroup(configuration: configuration)
    }

    // MARK: recovery

    /// After a restart: jobs of running scans are queued again (new attempt tokens), walks
    /// that had not finished start over (stored files are skipped), finished ones are checked.
    /// Call before running the services.
    func recover() async throws {
        let jobs = try await store.recoverJobs()
        scheduler.enqueue(jobs)
        let running = try await store.runningScans()
        for scan in running where !scan.walkComplete { scanStartsContinuation.yield(scan) }
        let walked = Set(running.filter(\.walkComplete).map(\.id))
        checkCompletion(walked)
        if !running.isEmpty {
            logger.info("resuming scans", metadata: ["scans": "\(running.map(\.id))", "jobs": "\(jobs.count)"])
        }
    }

    func describe(_ error: any Error) -> String {
        if let error = error as? any DatabaseErrorDescribable { return error.describe(path: store.path) }
        return "\(error)"
    }

    /// Sends a PROTOCOL_ERROR to a worker.
    func reply(to routingID: [UInt8], error code: Cull_V1_ProtocolError.Code, message: String, on transport: any MessageTransport) {
        var error = Cull_V1_ProtocolError()
        error.code = code
        error.message = message
        error.supportedVersion = UInt32(WireProtocol.version)
        transport.send([routingID] + WireCodec.encode(.protocolError(error)))
    }

    /// A printable key for a ZeroMQ routing id (worker ids are UTF-8; libzmq's own are binary).
    static func peerKey(_ routingID: [UInt8]) -> String {
        if let text = String(validating: routingID, as: UTF8.self),
           !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
            return text
        }
        return "0x" + routingID.map { String(format: "%02x", $0) }.joined()
    }
}

struct CoordinatorError: Error, CustomStringConvertible {
    let description: String
}
