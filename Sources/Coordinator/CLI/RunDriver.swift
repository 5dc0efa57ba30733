import Foundation
import ServiceLifecycle
import Shared
import Synchronization

/// `cull run`'s own service, run last in the coordinator's group (so stopped first): starts
/// the local workers, starts the scan, shows progress, and when the scan ends (or on Ctrl-C /
/// SIGTERM) stops the workers and returns, which shuts the whole group down gracefully.
final class RunDriver: Service, Sendable {
    let coordinator: Coordinator
    let root: String
    let prefer: [String]
    let referenceFolders: [String]
    let launch: WorkerProcesses.Launch
    private let result = Mutex<Result<ScanRecord, any Error>?>(nil)

    init(coordinator: Coordinator, root: String, prefer: [String] = [], referenceFolders: [String] = [], workers: WorkerProcesses.Launch) {
        self.coordinator = coordinator
        self.root = root
        self.prefer = prefer
        self.referenceFolders = referenceFolders
        self.launch = workers
    }

    /// How the scan ended; nil if the run was interrupted first.
    var outcome: Result<ScanRecord, any Error>? { result.withLock { $0 } }

    func run() async throws {
        let pool = try WorkerProcesses(launch, logger: coordinator.logger)
        let coordinator = self.coordinator
        let root = self.root, prefer = self.prefer, referenceFolders = self.referenceFolders
        let ended: Result<ScanRecord, any Error>? = await cancelWhenGracefulShutdown {
            do {
                let (scan, _) = try await coordinator.startScan(root: root, prefer: prefer, referenceFolders: referenceFolders)
                let progress = ProgressLine(enabled: standardErrorIsTerminal)
                defer { progress.finish() }
                return .success(try await coordinator.waitForScan(id: scan.id, check: {
                    pool.gaveUp ? CLIError("the worker processes keep exiting (see the messages above; --verbose shows more)") : nil
                }, progress: { progress.show($0) }))
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

/// One status line on a terminal, rewritten in place; nothing when not a terminal.
final class ProgressLine: Sendable {
    let enabled: Bool
    /// When the line was last written: it is rewritten at most every `interval`, however often
    /// the scan is looked at.
    private let shown = Mutex<ContinuousClock.Instant?>(nil)
    static let interval: Duration = .milliseconds(200)
    init(enabled: Bool) { self.enabled = enabled }

    func show(_ scan: ScanRecord) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let due = shown.withLock { last in
            guard last.map({ now - $0 >= Self.interval }) ?? true else { return false }
            last = now
            return true
        }
        if due { FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.describe(scan)).utf8)) }
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
