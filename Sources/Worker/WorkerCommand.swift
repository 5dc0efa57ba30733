import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import Shared

@main
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cull-worker",
        abstract: "Analyses photos for a cull coordinator (`cull serve`).",
        discussion: """
            Connects to the coordinator's work endpoint, says HELLO and analyses the photos it is \
            sent: reads each file on a fetch queue (with the job's fetch timeout), decodes it at \
            reduced size and computes its features on a compute queue. Paths must be readable \
            here as the coordinator enumerated them.

            Exit status: 0 after SIGTERM/SIGINT or a goodbye from the coordinator; 75 when too \
            many reads are stuck in the kernel and the worker recycles itself (a supervisor \
            should restart it); 78 when the coordinator speaks another protocol version; \
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

    @Option(help: "Heartbeat interval in milliseconds.")
    var heartbeatMs: Int = 1000

    @Option(help: "Missed heartbeats after which the coordinator is presumed gone.")
    var liveness: Int = 5

    @Option(help: "Stuck reads at which the worker exits with status 75 to be restarted.")
    var maxStuckReads: Int = 16

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String?

    func validate() throws {
        guard fetchThreads > 0, (computeThreads ?? 1) > 0, (capacity ?? 1) > 0, heartbeatMs >= 10, liveness >= 1, maxStuckReads >= 1 else {
            throw ValidationError("thread counts, capacity, liveness and --max-stuck-reads must be positive; --heartbeat-ms at least 10")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let level = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? LoggingSetup.level(from: environment, default: .info)
        LoggingSetup.bootstrap(level: level)
        let logger = Logger(label: "cull-worker")

        let host = ProcessInfo.processInfo.hostName
        let compute = computeThreads ?? ProcessInfo.processInfo.activeProcessorCount
        let configuration = WorkerConfiguration(
            endpoint: connect,
            workerID: id ?? "\(host):\(getpid()):\(String(UInt32.random(in: 0...UInt32.max), radix: 36))",
            host: host,
            capacity: capacity ?? 2 * compute,
            fetchThreads: fetchThreads,
            computeThreads: compute,
            heartbeatInterval: .milliseconds(heartbeatMs),
            heartbeatLiveness: liveness,
            maxAbandonedFetches: maxStuckReads
        )
        let daemon = WorkerDaemon(configuration: configuration, faults: FaultInjection(environment: environment), logger: logger)
        let watchdog = PoolWatchdog.forDaemon(environment: ProcessInfo.processInfo.environment, logger: logger)
        defer { watchdog?.stop() }
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        do {
            try await group.run()
        } catch let error as ZMQError {
            logger.critical("cannot use the coordinator endpoint \(connect): \(error.message)")
            throw ExitCode(WorkerExitStatus.usage.rawValue)
        }
        let status = daemon.exitStatus
        if status != .normal { throw ExitCode(status.rawValue) }
    }
}
