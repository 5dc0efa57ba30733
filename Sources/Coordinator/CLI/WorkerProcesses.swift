import Foundation
import Logging
import Synchronization

/// The local `cull-worker` processes `cull run` starts and supervises: a worker that exits
/// while the run goes on is started again (a bounded number of times), as systemd would.
/// Nothing starts until `startIfNeeded` sees files waiting for analysis: a rescan of an
/// unchanged library never needs a worker, and each worker spends about 0.2 s of CPU starting,
/// beside a rescan of 220,000 files that takes 1.1 s on 2 cores (bench/RESULTS.md, "Rescans").
final class WorkerProcesses: Sendable {
    private struct State {
        var processes: [Int: Process] = [:]
        var started = false
        var startFailure: (any Error)?
        var restarts = 0
        var stopping = false
    }

    /// What to start: `count` copies of `executable`, the i-th with `arguments(i)`.
    struct Launch: Sendable {
        var executable: URL
        var count: Int
        var maxRestarts = 20
        var environment: [String: String]
        var arguments: @Sendable (Int) -> [String]
    }

    let launch: Launch
    private let state = Mutex(State())
    private let logger: Logger

    init(_ launch: Launch, logger: Logger) {
        self.launch = launch
        self.logger = logger
    }

    /// Starts the workers the first time `scan` has files found but not yet analysed (new,
    /// changed, or sent back for verification); later calls do nothing. A worker that cannot
    /// be started is reported by `failure`.
    func startIfNeeded(for scan: ScanRecord) {
        guard scan.done < scan.total else { return }
        let first = state.withLock { state -> Bool in
            guard !state.started, !state.stopping else { return false }
            state.started = true
            return true
        }
        guard first else { return }
        logger.debug("starting \(launch.count) workers: \(scan.total - scan.done) files to analyse")
        do {
            for index in 0..<launch.count { try start(index) }
        } catch {
            state.withLock { $0.startFailure = error }
        }
    }

    /// Why the workers could not be started, if they could not.
    var failure: (any Error)? { state.withLock { $0.startFailure } }

    /// The `cull-worker` binary installed next to this `cull`.
    static func siblingExecutable(named name: String) throws -> URL {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let sibling = me.deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: sibling.path) else {
            throw CLIError("cannot find \(name) next to \(me.path); install both binaries in the same folder")
        }
        return sibling
    }

    private func start(_ index: Int) throws {
        let process = Process()
        process.executableURL = launch.executable
        process.arguments = launch.arguments(index)
        process.environment = launch.environment
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [weak self] finished in
            self?.exited(index, status: finished.terminationStatus)
        }
        try process.run()
        state.withLock { $0.processes[index] = process }
    }

    private func exited(_ index: Int, status: Int32) {
        let restart = state.withLock { state -> Bool in
            state.processes[index] = nil
            guard !state.stopping, state.restarts < launch.maxRestarts else { return false }
            state.restarts += 1
            return true
        }
        guard restart else { return }
        logger.warning("worker \(index) exited with status \(status); starting it again")
        do { try start(index) } catch { logger.error("could not restart worker \(index): \(error)") }
    }

    /// Every worker has exited and the restart budget is spent.
    var gaveUp: Bool {
        state.withLock { $0.processes.isEmpty && $0.restarts >= launch.maxRestarts && !$0.stopping }
    }

    /// SIGTERM to every worker, then SIGKILL to any still there after `grace`.
    func stop(grace: Duration = .seconds(5)) async {
        let running = state.withLock { state -> [Process] in
            state.stopping = true
            return Array(state.processes.values)
        }
        for process in running where process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, running.contains(where: \.isRunning) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for process in running where process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
