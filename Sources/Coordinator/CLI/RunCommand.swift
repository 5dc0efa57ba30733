import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import Shared

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Scans a folder on this machine and prints its duplicate groups.",
        discussion: """
            Starts a coordinator inside this process and --workers local cull-worker processes on \
            a private endpoint (it never collides with a running `cull serve`), scans DIR, prints \
            the groups and exits. Results are kept in --db, so running it again on the same \
            folder only analyses new and changed files. Ctrl-C or SIGTERM stops the workers and \
            keeps what was analysed; exit status 130 then.
            """
    )

    @Argument(help: "The folder to scan.")
    var directory: String

    @Option(help: "Local worker processes (default: the core count).")
    var workers: Int?

    @Option(help: "SQLite database file that keeps results between runs.")
    var db: String = RunCommand.defaultDatabase

    @Option(help: "Output: table (for people), csv (group,kind,path,keeper,distance, then more columns), json, or html (a page with thumbnails to review in a browser: `> review.html`).")
    var format: OutputFormat = .table

    @Flag(help: "List the photos that could not be analysed, with the reason, on standard error.")
    var showFailures = false

    @Flag(name: .shortAndLong, help: "Log what the coordinator and workers do.")
    var verbose = false

    @OptionGroup var keeperOptions: KeeperOptions
    @OptionGroup var pairsOptions: PairsOptions
    @OptionGroup var filterOptions: WalkFilterOptions
    @OptionGroup var daemonOptions: DaemonOptions
    @OptionGroup var options: CoordinatorOptions

    static var defaultDatabase: String {
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return cache + "/cull/cull-run.sqlite"
    }

    func validate() throws {
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1") }
        try checkFolderArgument(directory)
        var isDirectory: ObjCBool = false
        let path = absolutePath(directory)
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError("\(path) does not exist")
        }
        guard isDirectory.boolValue else { throw ValidationError("\(path) is not a directory") }
        try keeperOptions.requireInside(path)
        guard access(path, R_OK | X_OK) == 0 else {
            throw ValidationError("cannot read \(path): \(String(cString: strerror(errno))); run cull as a user who may list it, or check its permissions")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let level = verbose ? .info : daemonOptions.level(environment: environment, default: .warning)
        let (logger, watchdog) = daemonOptions.startDaemon(label: "cull.run", defaultLevel: level, environment: environment)
        defer { watchdog?.stop() }
        let root = absolutePath(directory)

        try await reportingErrors {
            let store = try await CullStore.open(path: absolutePath(db), on: BlockingQueue(label: "cull.run.setup", limit: 1))
            let database = absolutePath(db)
            // A file beside the database (a mount that may hang): its own thread, like the store's opening.
            let lock = try await onOwnThread { try DatabaseLock.acquire(database: database, role: "cull run") }
            defer { lock.release() }
            // A private endpoint in a fresh folder only this user can enter; removed on every
            // way out, Ctrl-C included (the service group turns signals into a graceful stop).
            let privateFolder = try PrivateFolder()
            defer { privateFolder.remove() }
            let endpoint = "ipc://\(privateFolder.path)/work"
            let sockets = try await CoordinatorSockets.open(work: endpoint, control: nil, logger: logger)
            let coordinator = Coordinator(configuration: options.configuration(work: endpoint, control: nil, daemon: daemonOptions),
                                          store: store, work: sockets.work, control: nil, host: HostName.current, logger: logger)
            var workerEnvironment = environment
            workerEnvironment["CULL_LOG_LEVEL"] = level.rawValue
            let driver = RunDriver(coordinator: coordinator, root: root, prefer: try keeperOptions.preferredRules(),
                                   referenceFolders: keeperOptions.referenceFolders, walkFilter: filterOptions.filter, workers: WorkerProcesses.Launch(
                executable: try WorkerProcesses.siblingExecutable(named: "cull-worker"),
                count: workers ?? ProcessInfo.processInfo.activeProcessorCount,
                environment: workerEnvironment,
                arguments: { [heartbeat = daemonOptions.heartbeatInterval] index in
                    ["--connect", endpoint, "--id", "run-\(getpid())-\(index)", "--compute-threads", "1",
                     "--fetch-threads", "4", "--capacity", "3", "--heartbeat", "\(heartbeat.wholeMilliseconds)ms",
                     "--exit-with-parent", "\(getpid())"]
                }))
            do {
                try await coordinator.recover()
                try await coordinator.serviceGroup(
                    extra: [.init(service: driver, successTerminationBehavior: .gracefullyShutdownGroup,
                                  failureTerminationBehavior: .gracefullyShutdownGroup)],
                    signals: [.sigterm, .sigint]
                ).run()
            } catch {
                await sockets.close()
                throw error
            }
            await sockets.close()

            guard let outcome = driver.outcome else {
                printError("interrupted: the workers were stopped; what was analysed is kept in \(absolutePath(db)), so running again continues from there")
                throw ExitCode(130)
            }
            try await report(try outcome.get(), store: store, root: root)
        }
    }

    private func report(_ scan: ScanRecord, store: CullStore, root: String) async throws {
        guard scan.state == .done else {
            throw CLIError("scan \(scan.id) ended \(scan.state.rawValue): \(scan.error ?? "no reason recorded")")
        }
        let groups = pairsOptions.pairs.applied(to: try await store.groups(scanID: scan.id))
        let text = try await GroupsFormatter.output(groups, format: format, root: root, scanID: scan.id)
        FileHandle.standardOutput.write(Data(text.utf8))
        printError("scanned \(scan.total) files in \(root): \(Self.plainCounts(total: scan.total, analysedNow: scan.toAnalyse, analysedAgain: scan.analysedAgain, failed: scan.failed)); \(GroupsFormatter.summary(groups))")
        if scan.verifying > 0 {
            printError("\(scan.verifying) photos that matched on their embedded previews were checked again on their main image before grouping")
        }
        if scan.failed > 0 {
            if showFailures {
                for failure in try await store.failures(scan: scan, limit: 100_000) { printError("  \(failure.kind): \(failure.message)") }
            } else {
                printError("(--show-failures lists them with the reason)")
            }
        }
    }
}

extension RunCommand {
    /// The files of a run in plain words: "4 new or changed, 44 unchanged, 0 could not be
    /// analysed" (unchanged files keep what an earlier run found). Unchanged files analysed
    /// again (`ScanRecord.analysedAgain`: after an upgrade of the analysis, or a failure that
    /// may pass) are said apart, when there are any: "0 new or changed, 500 analysed again, …"
    /// after an upgrade, not 500 files that seem to have changed.
    static func plainCounts(total: Int64, analysedNow: Int64, analysedAgain: Int64 = 0, failed: Int64) -> String {
        let again = min(analysedAgain, analysedNow), unchanged = max(0, total - analysedNow)
        let redone = again > 0 ? ", \(again) analysed again" : ""
        return "\(analysedNow - again) new or changed\(redone), \(unchanged) unchanged, \(failed) could not be analysed"
    }
}

/// A folder only this user can enter (mkdtemp), for `cull run`'s private endpoint.
struct PrivateFolder: Sendable {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "cull-run-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CLIError("cannot create a temporary folder: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
