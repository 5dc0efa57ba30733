import ArgumentParser
import Foundation
import Logging
import Shared
import Synchronization

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Scans a folder on this machine and prints its duplicate groups.",
        discussion: """
            Starts a coordinator inside this process and --workers local cull-worker processes on \
            a private endpoint (it never collides with a running `cull serve`), scans DIR, prints \
            the groups and exits. Results are kept in --db, so running it again on the same \
            folder only analyses new and changed files.
            """
    )

    @Argument(help: "The folder to scan.")
    var directory: String

    @Option(help: "Local worker processes (default: the core count).")
    var workers: Int?

    @Option(help: "SQLite database file that keeps results between runs.")
    var db: String = RunCommand.defaultDatabase

    @Option(help: "Output: table (for people), csv (group,kind,path,keeper,distance) or json.")
    var format: OutputFormat = .table

    @Flag(help: "List the photos that could not be analysed, with the reason, on standard error.")
    var showFailures = false

    @Flag(name: .shortAndLong, help: "Log what the coordinator and workers do.")
    var verbose = false

    @OptionGroup var options: CoordinatorOptions

    static var defaultDatabase: String {
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return cache + "/cull/cull-run.sqlite"
    }

    func validate() throws {
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1") }
        var isDirectory: ObjCBool = false
        let path = absolutePath(directory)
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError("\(path) does not exist")
        }
        guard isDirectory.boolValue else { throw ValidationError("\(path) is not a directory") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let level: Logger.Level = verbose ? .info : LoggingSetup.level(from: environment, default: .warning)
        LoggingSetup.bootstrap(level: level)
        let logger = Logger(label: "cull.run")
        let watchdog = PoolWatchdog.forDaemon(environment: ProcessInfo.processInfo.environment, logger: logger)
        defer { watchdog?.stop() }
        let root = absolutePath(directory)
        let workerCount = workers ?? ProcessInfo.processInfo.activeProcessorCount

        try await reportingErrors {
            let setupQueue = BlockingQueue(label: "cull.run.setup", limit: 1)
            let store = try await CullStore.open(path: absolutePath(db), on: setupQueue)

            // A private endpoint in a fresh folder only this user can enter.
            var template = Array((NSTemporaryDirectory() + "cull-run-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw CLIError("cannot create a temporary folder: \(String(cString: strerror(errno)))") }
            let privateDirectory = String(cString: made)
            defer { try? FileManager.default.removeItem(atPath: privateDirectory) }
            let endpoint = "ipc://\(privateDirectory)/work"

            let daemon = CoordinatorDaemon(configuration: options.configuration(work: endpoint, control: nil), store: store, logger: logger)
            let daemonFailure = Mutex<(any Error)?>(nil)
            let daemonTask = Task {
                do { try await daemon.run() } catch { daemonFailure.withLock { $0 = error } }
            }
            if await daemon.boundEndpoints().isEmpty {
                await daemonTask.value
                throw daemonFailure.withLock { $0 } ?? CLIError("the coordinator could not start")
            }

            var workerEnvironment = environment
            workerEnvironment["CULL_LOG_LEVEL"] = level.rawValue
            let heartbeat = options.heartbeatMs
            let pool = try WorkerProcesses(
                executable: try WorkerProcesses.siblingExecutable(named: "cull-worker"),
                count: workerCount, environment: workerEnvironment, logger: logger
            ) { index in
                ["--connect", endpoint, "--id", "run-\(getpid())-\(index)", "--compute-threads", "1",
                 "--fetch-threads", "4", "--capacity", "3", "--heartbeat-ms", "\(heartbeat)"]
            }

            let outcome: Result<ScanRecord, any Error>
            do {
                let (scan, _) = try await daemon.startScan(root: root)
                let progress = ProgressLine(enabled: standardErrorIsTerminal)
                let finished = try await daemon.waitForScan(id: scan.id, check: {
                    if let failure = daemonFailure.withLock({ $0 }) { return failure }
                    if pool.gaveUp { return CLIError("the worker processes keep exiting (see the messages above; --verbose shows more)") }
                    return nil
                }, progress: { progress.show($0) })
                progress.finish()
                outcome = .success(finished)
            } catch {
                outcome = .failure(error)
            }

            await pool.stop()
            await daemon.shutdown()
            await daemonTask.value

            let scan = try outcome.get()
            guard scan.state == .done else {
                throw CLIError("scan \(scan.id) ended \(scan.state.rawValue): \(scan.error ?? "no reason recorded")")
            }
            let groups = try await store.groups(scanID: scan.id)
            FileHandle.standardOutput.write(Data(GroupsFormatter.render(groups, format: format).utf8))
            let analysed = scan.total - scan.failed
            printError("scanned \(scan.total) files in \(root): \(analysed) analysed, \(scan.failed) could not be analysed, \(groups.count) groups")
            if scan.failed > 0 {
                let failures = try await store.failures(scan: scan, limit: showFailures ? 100_000 : 0)
                if showFailures {
                    for failure in failures { printError("  \(failure.kind): \(failure.message)") }
                } else {
                    printError("(--show-failures lists them with the reason)")
                }
            }
        }
    }
}

/// One status line on a terminal, rewritten in place; nothing when not a terminal.
final class ProgressLine: Sendable {
    let enabled: Bool
    init(enabled: Bool) { self.enabled = enabled }

    func show(_ scan: ScanRecord) {
        guard enabled else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.describe(scan)).utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    static func describe(_ scan: ScanRecord) -> String {
        let percent = scan.total > 0 ? Double(scan.done) * 100 / Double(scan.total) : 0
        let walking = scan.walkComplete ? "" : ", still finding files"
        return String(format: "scan %lld: %lld/%lld photos (%.1f%%), %lld failed%@",
                      scan.id, scan.done, scan.total, percent, scan.failed, walking)
    }
}
