import Analysis
import ArgumentParser
import CZeroMQ
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Synchronization

@main
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cull-worker",
        abstract: "Analyses photos for a cull coordinator (`cull serve`).",
        discussion: """
            Connects to the coordinator's work endpoint, says HELLO and analyses the photos it is \
            sent: reads each file on a fetch queue (with the job's fetch timeout), decodes it at \
            reduced size and computes its features on a compute queue. Paths must be readable \
            here as the coordinator enumerated them (or under --path-map), and with --root only \
            files inside those folders are opened.

            Exit status: 0 after SIGTERM/SIGINT or a goodbye from the coordinator; 75 when too \
            many reads are stuck in the kernel and the worker recycles itself (a supervisor \
            should restart it); 78 when the coordinator speaks another protocol version; \
            69 when this processor lacks what the build needs (README, "Older processors"); \
            64 for bad arguments.
            """,
        version: CullVersion.software
    )

    @Option(help: "The coordinator's work endpoint.")
    var connect: String = Endpoints.defaultWork

    @Option(help: "This worker's id (default: host:pid:random). Must be unique per running worker.")
    var id: String?

    @Option(help: "Threads reading files (blocking I/O). Network mounts like more.")
    var fetchThreads: Int = 8

    @Option(help: "Threads decoding and hashing (default: the core count).")
    var computeThreads: Int?

    @Option(help: "Jobs held at once: the credit offered to the coordinator (default: 2 x compute threads).")
    var capacity: Int?

    @Option(help: "Stuck reads at which the worker exits with status 75 to be restarted.")
    var maxStuckReads: Int = 16

    @Option(name: .customLong("root"), help: ArgumentHelp(
        "A folder this worker may read (repeatable). Paths outside every root, after resolving links, are refused as unreadable and never opened. Without any, every absolute path is read.",
        valueName: "dir"))
    var roots: [String] = []

    @Option(name: .customLong("path-map"), help: ArgumentHelp(
        "FROM=TO: a path the coordinator names under FROM is read under TO here (repeatable; the first that matches).",
        valueName: "from=to"))
    var pathMaps: [String] = []

    @Option(help: "The largest file read, in MiB, whatever a job allows.")
    var maxFileMb: Int = AnalysisOptions().maxFileBytes >> 20

    @Option(help: "The largest image decoded, in megapixels, whatever a job allows.")
    var maxMegapixels: Int = AnalysisOptions().maxPixels / 1_000_000

    @Option(help: ArgumentHelp("This worker's secret key (`cull keygen`), for a coordinator that requires CURVE (default: $CULL_KEY). Its .public file goes into the coordinator's --authorized folder.", valueName: "file"))
    var key: String?

    @Option(name: .customLong("server-key"), help: ArgumentHelp("The coordinator's public key (default: $CULL_SERVER_KEY). With --key: the connection is encrypted, and only that coordinator is spoken to.", valueName: "file"))
    var serverKey: String?

    @Option(help: ArgumentHelp("Serve Prometheus metrics over HTTP at http://HOST:PORT/metrics (for example 127.0.0.1:9465): read and decode times, photos by outcome, jobs in hand, stuck reads. Unauthenticated: keep it on loopback or a network you trust. Default: $CULL_WORKER_METRICS, else none.", valueName: "host:port"))
    var metrics: String?

    @Option(help: .hidden)
    var exitWithParent: Int32?

    @OptionGroup var configFile: ConfigurationOptions

    @OptionGroup var daemonOptions: DaemonOptions

    func validate() throws {
        guard fetchThreads > 0, (computeThreads ?? 1) > 0, (capacity ?? 1) > 0, maxStuckReads >= 1 else {
            throw ValidationError("thread counts, capacity and --max-stuck-reads must be positive")
        }
        guard maxFileMb > 0, maxMegapixels > 0 else { throw ValidationError("--max-file-mb and --max-megapixels must be positive") }
        for root in roots where !root.hasPrefix("/") { throw ValidationError("--root \(root): give an absolute path") }
        if let metrics {
            do { _ = try MetricsEndpoint.parse(metrics) } catch let error as MetricsEndpointError { throw ValidationError(error.description) }
        }
        for argument in pathMaps where ReadPolicy.mapping(argument) == nil {
            throw ValidationError("--path-map \(argument): expected FROM=TO, both absolute paths (e.g. /volume1/photos=/mnt/photos)")
        }
    }

    /// The roots resolved (each must be a folder that exists), the path maps parsed, the limits.
    /// Reads the file system (a root may sit on a hung mount): `run` calls it on a blocking
    /// queue under a deadline, never on the cooperative pool.
    func readPolicy() throws -> ReadPolicy {
        var policy = ReadPolicy(maxFileBytes: maxFileMb << 20, maxPixels: maxMegapixels * 1_000_000)
        for root in roots {
            var isFolder: ObjCBool = false
            guard root.hasPrefix("/"), FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue,
                  let resolved = FilePaths.realPath(root) else {
                throw ValidationError("--root \(root): no folder there that this worker can read; give each library folder as this machine mounts it")
            }
            policy.roots.append(resolved)
        }
        for argument in pathMaps {
            guard let mapping = ReadPolicy.mapping(argument) else {
                throw ValidationError("--path-map \(argument): expected FROM=TO, both absolute paths (e.g. /volume1/photos=/mnt/photos)")
            }
            policy.pathMap.append(mapping)
        }
        return policy
    }

    /// `--key` and `--server-key` (or CULL_KEY and CULL_SERVER_KEY) read: both or neither. Reads
    /// files: `run` calls it on a blocking queue under a deadline.
    func curveKeys() throws -> WorkerCurve? {
        switch (key, serverKey) {
        case (nil, nil): return nil
        case (let secret?, let server?):
            do {
                return WorkerCurve(keyPair: try CurveKeyFiles.readSecret(secret), serverKey: try CurveKeyFiles.readPublic(server))
            } catch let failure as CurveKeyFiles.Failure {
                throw ValidationError(failure.description)
            }
        default:
            throw ValidationError("give both --key (this worker's secret key) and --server-key (the coordinator's public key), or neither")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (logger, watchdog) = daemonOptions.startDaemon(label: "cull-worker", defaultLevel: .info, environment: environment)
        defer { watchdog?.stop() }

        let readPolicy: ReadPolicy, curve: WorkerCurve?
        do {
            let command = self
            (readPolicy, curve) = try await BlockingQueue(label: "cull-worker.setup", limit: 1).run(timeout: .seconds(30), operation: "resolving the --root folders and reading the keys") {
                (try command.readPolicy(), try command.curveKeys())
            }
        } catch {
            logger.critical("\(error)")
            throw ExitCode(WorkerExitStatus.usage.rawValue)
        }
        let host = HostName.current
        let compute = computeThreads ?? ProcessInfo.processInfo.activeProcessorCount
        let configuration = WorkerConfiguration(
            endpoint: connect,
            workerID: id ?? "\(host):\(getpid()):\(String(UInt32.random(in: 0...UInt32.max), radix: 36))",
            host: host,
            capacity: capacity ?? 2 * compute,
            fetchThreads: fetchThreads,
            computeThreads: compute,
            heartbeatInterval: daemonOptions.heartbeatInterval,
            heartbeatLiveness: daemonOptions.liveness,
            maxAbandonedFetches: maxStuckReads,
            parentProcess: exitWithParent,
            readPolicy: readPolicy,
            curve: curve
        )
        if configuration.readPolicy.roots.isEmpty {
            // `cull run`'s own workers (started with --exit-with-parent) serve only the walk of
            // the process that started them: no warning for them on every run.
            let level: Logger.Level = exitWithParent == nil ? .warning : .debug
            logger.log(level: level, "no --root given: this worker reads any path a coordinator names; give --root for each library folder")
        } else {
            logger.info("reading only under \(configuration.readPolicy.roots.joined(separator: ", "))")
        }
        let socket: WorkerSocket
        do {
            socket = try await WorkerSocket.open(configuration, logger: logger)
        } catch let error as ZMQError {
            logger.critical("cannot use the coordinator endpoint \(connect): \(error.message)")
            throw ExitCode(WorkerExitStatus.usage.rawValue)
        }
        let daemon = WorkerDaemon(configuration: configuration, transport: socket.thread, faults: FaultInjection(environment: environment), logger: logger)
        let notify = SystemdNotifyService(logger: logger) {
            let (welcomed, jobs) = daemon.state.withLock { ($0.isWelcomed, $0.jobsInFlight.count) }
            return welcomed ? "working for \(configuration.endpoint): \(jobs) jobs in hand" : "waiting for the coordinator at \(configuration.endpoint)"
        }
        var services = daemon.services + [notify]
        if let address = metrics {
            let pipeline = daemon.pipeline
            do {
                let endpoint = try await MetricsEndpoint.bind(address, registry: pipeline.metrics.registry) {
                    pipeline.metrics.sample(jobs: daemon.state.withLock { $0.jobsInFlight.count }, photosInFlight: pipeline.photosInFlight.inUse,
                                            stuckReads: pipeline.fetchQueue.abandoned + pipeline.computeQueue.abandoned)
                }
                logger.info("serving metrics", metadata: ["url": "http://\(endpoint.boundAddress)/metrics"])
                services.append(endpoint)
            } catch {
                await socket.close()
                logger.critical("\(error)")
                throw ExitCode(WorkerExitStatus.usage.rawValue)
            }
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        // Rule 3: a goodbye and a closed socket take milliseconds; past this the rest is cancelled.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(10)
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
        await socket.close()
        let status = daemon.exitStatus
        if status != .normal { throw ExitCode(status.rawValue) }
    }
}

/// The worker's DEALER socket and its context, opened and closed off the cooperative pool
/// (creating a context, connecting and `zmq_ctx_term` are blocking calls).
struct WorkerSocket: Sendable {
    let context: ZMQContext
    let thread: SocketThread
    /// With CURVE: watches the handshakes, so that a refused key is said in the log.
    let monitor: SocketMonitor?

    static func open(_ configuration: WorkerConfiguration, logger: Logger) async throws -> WorkerSocket {
        try await Shared.onOwnThread {
            let context = try ZMQContext()
            let monitor = Mutex<SocketMonitor?>(nil)
            do {
                let thread = try SocketThread(name: "cull-worker.dealer", context: context, type: .dealer, logger: logger) { socket in
                    try socket.setOption(ZMQ_ROUTING_ID, bytes: Array(configuration.workerID.utf8))
                    try socket.setOption(ZMQ_LINGER, Int32(1000))
                    try socket.setOption(ZMQ_MAXMSGSIZE, WireProtocol.maxMessageBytes)
                    try socket.setOption(ZMQ_RECONNECT_IVL, Int32(100))
                    try socket.setOption(ZMQ_RECONNECT_IVL_MAX, Int32(5000))
                    try socket.setOption(ZMQ_SNDHWM, Int32(1000))
                    try socket.setOption(ZMQ_RCVHWM, Int32(1000))
                    if let curve = configuration.curve {
                        // CURVE client: encrypted, and it speaks only to the coordinator holding that key.
                        try socket.setOption(ZMQ_CURVE_SERVERKEY, bytes: curve.serverKey.bytes)
                        try socket.setOption(ZMQ_CURVE_PUBLICKEY, bytes: curve.keyPair.publicKey.bytes)
                        try socket.setOption(ZMQ_CURVE_SECRETKEY, bytes: curve.keyPair.secretKey.bytes)
                        monitor.withLock { $0 = try? SocketMonitor(
                            socket: socket, context: context,
                            events: ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL,
                            name: "cull-worker.curve", logger: logger, handle: HandshakeLog(endpoint: configuration.endpoint, logger: logger).record) }
                    }
                    try socket.connect(configuration.endpoint)
                }
                return WorkerSocket(context: context, thread: thread, monitor: monitor.withLock { $0 })
            } catch {
                monitor.withLock { $0?.requestShutdown() }
                context.terminate()
                throw error
            }
        }
    }

    func close() async {
        await thread.shutdown()
        monitor?.requestShutdown()
        let context = self.context
        try? await Shared.onOwnThread { context.terminate() }
    }
}

/// Says in the log, once a minute at most, why a CURVE handshake with the coordinator failed:
/// without it a refused worker would only hear nothing.
final class HandshakeLog: Sendable {
    let endpoint: String
    let logger: Logger
    private let throttle = LogThrottle(perWindow: 1, window: .seconds(60))

    init(endpoint: String, logger: Logger) {
        self.endpoint = endpoint
        self.logger = logger
    }

    func record(_ event: SocketMonitor.Event) {
        if event.kind == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH {
            throttle.warning(logger, "the coordinator at \(endpoint) refused this worker's key (status \(event.value)): put its .public file in the coordinator's --authorized folder, then `systemctl reload cull` there")
        } else {
            throttle.warning(logger, "the CURVE handshake with \(endpoint) failed (libzmq error \(event.value)): is --server-key the coordinator's public key, and was cull serve started with --key?")
        }
    }
}
