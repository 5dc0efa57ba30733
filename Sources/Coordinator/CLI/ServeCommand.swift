import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import Shared

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Runs the coordinator daemon.",
        discussion: """
            Listens for workers on --work and for `cull` commands on --control, keeps its state \
            in SQLite (--db) and resumes unfinished scans after a restart. Stops cleanly on \
            SIGTERM or SIGINT.
            """
    )

    @Option(help: "SQLite database file (created if missing).")
    var db: String = ServeCommand.defaultDatabase

    @Option(help: "Endpoint workers connect to. Use tcp://0.0.0.0:5555 to accept workers on other machines.")
    var work: String = Endpoints.defaultWork

    @Option(help: "Endpoint `cull` commands connect to.")
    var control: String = Endpoints.defaultControl

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String?

    @OptionGroup var options: CoordinatorOptions

    static var defaultDatabase: String {
        if getuid() == 0 { return "/var/lib/cull/cull.sqlite" }
        let home = ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? (NSHomeDirectory() + "/.local/share")
        return home + "/cull/cull.sqlite"
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        LoggingSetup.bootstrap(level: logLevel.flatMap(Logger.Level.init(rawValue:)) ?? LoggingSetup.level(from: environment, default: .info))
        let logger = Logger(label: "cull.serve")
        let watchdog = PoolWatchdog.forDaemon(environment: ProcessInfo.processInfo.environment, logger: logger)
        defer { watchdog?.stop() }
        try await reportingErrors {
            let setupQueue = BlockingQueue(label: "cull.serve.setup", limit: 1)
            let store = try await CullStore.open(path: absolutePath(db), on: setupQueue)
            let daemon = CoordinatorDaemon(configuration: options.configuration(work: work, control: control), store: store, logger: logger)
            let group = ServiceGroup(configuration: .init(
                services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
            try await group.run()
        }
    }
}
