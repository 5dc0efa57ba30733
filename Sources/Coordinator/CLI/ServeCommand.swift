import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import Shared

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Runs the coordinator daemon.",
        discussion: """
            Listens for workers on --work and for `cull` commands on --control, keeps its state \
            in SQLite (--db) and resumes unfinished scans after a restart. Stops cleanly on \
            SIGTERM or SIGINT: dispatching stops, results received are stored, workers are told \
            to reconnect later.
            """
    )

    @Option(help: "SQLite database file (created if missing).")
    var db: String = ServeCommand.defaultDatabase

    @Option(help: "Endpoint workers connect to. Use tcp://0.0.0.0:5555 to accept workers on other machines.")
    var work: String = Endpoints.defaultWork

    @Option(name: .customLong("control"), help: ArgumentHelp("Endpoint `cull` commands connect to (default: $CULL_CONTROL, else \(Endpoints.systemControl) for root, else ipc://$XDG_RUNTIME_DIR/cull/control). A Unix socket is made mode 0660 with group cull when that group exists (0600 otherwise): its permissions decide who may scan, cancel and read groups.", valueName: "endpoint"))
    var controlOption: String?

    /// --control, else the default for this user.
    var control: String { controlOption ?? Endpoints.serveControl(environment: ProcessInfo.processInfo.environment) }

    @Option(help: "The keeper chain scans use unless they say otherwise: original, pixels, earliest, largest, oldest in order of preference (default: $CULL_PREFER, else original,pixels,earliest,largest,oldest).")
    var prefer: String?

    @Option(name: .customLong("library-root"), help: ArgumentHelp(
        "A folder scans may start in (repeatable). A scan of any other folder, or of a link leading out of these, is refused. Default: any folder the daemon can read.",
        valueName: "dir"))
    var libraryRoots: [String] = []

    @Option(help: ArgumentHelp(
        "The coordinator's secret key (`cull keygen`): workers must then connect with CURVE, encrypted, with a key in --authorized.",
        valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp(
        "With --key: the folder of authorised public keys (NAME.public, one per worker machine); read again on SIGHUP.",
        valueName: "dir"))
    var authorized: String?

    @Flag(help: "Listen on an address other machines can reach without --key (plain, unauthenticated TCP: any process that reaches it can take work and send results).")
    var insecure = false

    @Option(help: ArgumentHelp(
        "Serve Prometheus metrics over HTTP at http://HOST:PORT/metrics (for example 127.0.0.1:9464). Unauthenticated: keep it on loopback or a network you trust. Default: $CULL_METRICS, else none.",
        valueName: "host:port"))
    var metrics: String?

    @OptionGroup var configFile: ConfigurationOptions

    @OptionGroup var daemonOptions: DaemonOptions
    @OptionGroup var options: CoordinatorOptions

    static var defaultDatabase: String {
        if getuid() == 0 { return "/var/lib/cull/cull.sqlite" }
        let home = ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? (NSHomeDirectory() + "/.local/share")
        return home + "/cull/cull.sqlite"
    }

    func validate() throws {
        _ = try defaultKeeperRules()
        if (key == nil) != (authorized == nil) {
            throw ValidationError("give --key (this coordinator's secret key) and --authorized (the folder of the workers' public keys) together")
        }
        if key == nil && !insecure && !Endpoints.isLocal(work) {
            throw ValidationError("""
                --work \(work) can be reached from other machines, and without --key anyone who reaches it can take \
                work and send forged results. Make keys (`cull keygen /etc/cull/coordinator`, one per worker machine), \
                then run `cull serve --key /etc/cull/coordinator.secret --authorized /etc/cull/authorized`; or pass \
                --insecure on a network you trust.
                """)
        }
        if key == nil && !insecure && !Endpoints.isLocal(control) {
            throw ValidationError("""
                --control \(control) can be reached from other machines, and without --key anyone reaching it could \
                start, cancel and read scans. With --key and --authorized it speaks CURVE to authorised clients only \
                (`cull status --key CLIENT.secret --server-key coordinator.public`); or keep it on an ipc:// path or \
                127.0.0.1 and run `cull` on this machine (over ssh); or pass --insecure on a network you trust.
                """)
        }
        for root in libraryRoots where !root.hasPrefix("/") { throw ValidationError("--library-root \(root): give an absolute path") }
        if let metrics {
            do { _ = try MetricsEndpoint.parse(metrics) } catch let error as MetricsEndpointError { throw ValidationError(error.description) }
        }
    }

    /// The key pair and the authorised keys, read on a thread of their own (files, perhaps on a
    /// slow mount); nil without --key.
    func curveSettings() async throws -> CoordinatorSockets.Curve? {
        guard let key, let authorized else { return nil }
        return try await onOwnThread {
            let pair: CurveKeyPair
            do {
                pair = try CurveKeyFiles.readSecret(key)
            } catch let failure as CurveKeyFiles.Failure {
                throw CoordinatorError(description: failure.description)
            }
            let keys = try AuthorizedKeys.load(directory: authorized)
            return CoordinatorSockets.Curve(keyPair: pair, authorized: keys)
        }
    }

    /// `--check-config`: the files the configuration names can be read (the database's folder
    /// and the keys); throws with what is wrong.
    func checkFiles() async throws {
        _ = try await curveSettings()
        let folder = (absolutePath(db) as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CoordinatorError(description: "--db \(db): its folder \(folder) does not exist")
        }
    }

    /// `--prefer`, else `CULL_PREFER` (deploy/cull.env), else the default chain.
    func defaultKeeperRules(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [KeeperRule] {
        guard let text = prefer ?? environment["CULL_PREFER"].flatMap({ $0.isEmpty ? nil : $0 }) else { return KeeperPolicy.defaultRules }
        do {
            return try KeeperPolicy.rules(parsing: text)
        } catch {
            throw ValidationError(prefer == nil ? "CULL_PREFER: \(error.description)" : "--prefer: \(error.description)")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (logger, watchdog) = daemonOptions.startDaemon(label: "cull.serve", defaultLevel: .info, environment: environment)
        defer { watchdog?.stop() }
        try await reportingErrors {
            let store = try await CullStore.open(path: absolutePath(db), on: BlockingQueue(label: "cull.serve.setup", limit: 1))
            let database = absolutePath(db)
            // A file beside the database (a mount that may hang): its own thread, like the store's opening.
            let lock = try await onOwnThread { try DatabaseLock.acquire(database: database, role: "cull serve") }
            defer { lock.release() }
            let curve = try await curveSettings()
            let sockets = try await CoordinatorSockets.open(work: work, control: control, curve: curve, logger: logger)
            if let curve {
                logger.info("workers must authenticate (CURVE)", metadata: ["public key": "\(curve.keyPair.publicKey.z85)", "authorised keys": "\(curve.authorized.count)"])
            }
            logger.info("listening", metadata: ["work": "\(sockets.work.boundEndpoints.joined())", "control": "\(sockets.control?.boundEndpoints.joined() ?? "-")"])
            var configuration = options.configuration(work: work, control: control, daemon: daemonOptions)
            configuration.keeperPolicy.rules = try defaultKeeperRules()
            configuration.libraryRoots = libraryRoots
            let coordinator = Coordinator(configuration: configuration,
                                          store: store, work: sockets.work, control: sockets.control,
                                          host: HostName.current, logger: logger)
            do {
                try await coordinator.recover()
                var extra: [ServiceGroupConfiguration.ServiceConfiguration] = sockets.authentication.map { handler in
                    [.init(service: AuthenticationService(handler: handler, directory: authorized ?? "", logger: logger))]
                } ?? []
                if let address = metrics ?? environment["CULL_METRICS"].flatMap({ $0.isEmpty ? nil : $0 }) {
                    let scheduler = coordinator.scheduler, results = coordinator.results, collected = coordinator.metrics
                    let endpoint = try await MetricsEndpoint.bind(address, registry: collected.registry) {
                        collected.sample(scheduler: scheduler, bufferedResults: results.count)
                    }
                    logger.info("serving metrics", metadata: ["url": "http://\(endpoint.boundAddress)/metrics"])
                    extra.append(.init(service: endpoint))
                }
                // Last to start, first to stop: READY once everything runs, STOPPING as shutdown begins.
                let scheduler = coordinator.scheduler
                extra.append(.init(service: SystemdNotifyService(logger: logger) {
                    "\(scheduler.workers().count) workers, \(scheduler.inFlightCount) jobs out, \(scheduler.queuedCount) queued"
                }))
                try await coordinator.serviceGroup(extra: extra, signals: [.sigterm, .sigint]).run()
            } catch {
                await sockets.close()
                throw error
            }
            await sockets.close()
            logger.info("stopped")
        }
    }
}
