import Foundation
import ServiceLifecycle
import Shared
import Synchronization

/// `cull run`'s own service, run last in the coordinator's group (so stopped first): starts
/// the scan, starts the local workers once the scan has files to analyse, shows progress, and
/// when the scan ends (or on Ctrl-C / SIGTERM) stops the workers and returns, which shuts the
/// whole group down gracefully. Starting a process (posix_spawn) happens on this task, as it
/// did before the start was deferred: a fork and exec, never a wait.
final class RunDriver: Service, Sendable {
    let coordinator: Coordinator
    let root: String
    let prefer: [String]
    let referenceFolders: [String]
    let walkFilter: WalkFilter
    let launch: WorkerProcesses.Launch
    private let result = Mutex<Result<ScanRecord, any Error>?>(nil)

    init(coordinator: Coordinator, root: String, prefer: [String] = [], referenceFolders: [String] = [], walkFilter: WalkFilter = WalkFilter(),
         workers: WorkerProcesses.Launch) {
        self.coordinator = coordinator
        self.root = root
        self.prefer = prefer
        self.referenceFolders = referenceFolders
        self.walkFilter = walkFilter
        self.launch = workers
    }

    /// How the scan ended; nil if the run was interrupted first.
    var outcome: Result<ScanRecord, any Error>? { result.withLock { $0 } }

    func run() async throws {
        let pool = WorkerProcesses(launch, logger: coordinator.logger)
        let coordinator = self.coordinator
        let root = self.root, prefer = self.prefer, referenceFolders = self.referenceFolders, walkFilter = self.walkFilter
        let ended: Result<ScanRecord, any Error>? = await cancelWhenGracefulShutdown {
            do {
                let (scan, _) = try await coordinator.startScan(root: root, prefer: prefer, referenceFolders: referenceFolders, walkFilter: walkFilter)
                let progress = ProgressLine(terminal: standardErrorIsTerminal)
                defer { progress.finish() }
                return .success(try await coordinator.waitForScan(id: scan.id, check: {
                    if let failure = pool.failure { return CLIError("cannot start the worker processes: \(failure)") }
                    return pool.gaveUp ? CLIError("the worker processes keep exiting (see the messages above; --verbose shows more)") : nil
                }, progress: {
                    pool.startIfNeeded(for: $0)
                    progress.show($0, grouping: coordinator.groupingBoard.snapshot(scanID: $0.id))
                }))
            } catch is CancellationError {
                return nil
            } catch {
                return .failure(error)
            }
        }
        result.withLock { $0 = ended }
        // Stopping the workers must finish even though this task may be cancelled: it runs
        // in a task of its own, which has its own deadline (SIGKILL after the grace period).
        await Task { await pool.stop() }.value
    }
}

/// `cull run`'s progress on standard error (`ProgressMeter`): a bar rewritten in place on a
/// terminal, a plain line every few seconds when piped.
final class ProgressLine: Sendable {
    let terminal: Bool
    private let meter: Mutex<ProgressMeter>
    init(terminal: Bool) {
        self.terminal = terminal
        meter = Mutex(ProgressMeter(terminal: terminal))
    }

    func show(_ scan: ScanRecord, grouping: GroupingProgress.Snapshot? = nil) {
        guard let text = meter.withLock({ $0.update(ScanProgress(scan, grouping: grouping)) }) else { return }
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Clears the bar (a terminal's line is rewritten in place; the listing follows).
    func finish() {
        guard terminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
