import Analysis
import Foundation
import GRDB
import Shared
import Testing

/// A `cull serve` with its workers, for fault-tolerance tests: start, kill -9, restart.
final class Cluster: @unchecked Sendable {
    // @unchecked: used from one test task at a time; the children are Sendable.
    let scratch: Scratch
    let database: String
    let work: String
    let control: String
    var serve: Child?
    var workers: [Int: Child] = [:]
    var serveArguments: [String]
    var workerEnvironment: [String: String]
    var workerArguments: [String]

    init(serveArguments: [String] = [], workerEnvironment: [String: String] = [:], workerArguments: [String] = []) throws {
        scratch = try Scratch()
        database = scratch.path + "/cull.sqlite"
        let ports = try freePorts(2)
        work = "tcp://127.0.0.1:\(ports[0])"
        control = "tcp://127.0.0.1:\(ports[1])"
        self.serveArguments = serveArguments
        self.workerEnvironment = workerEnvironment
        self.workerArguments = workerArguments
    }

    /// A running daemon with `workers` workers whose every read takes `readDelay` ms, and a
    /// library of `scenes` small scenes in `lib`: scans slow enough to act on midway.
    static func slowScans(readDelay: Int, scenes: Int, workers: Int) async throws -> (cluster: Cluster, library: String, entries: [SampleLibrary.Entry]) {
        let cluster = try Cluster(workerEnvironment: ["CULL_WORKER_FAULTS": "read-delay-ms=\(readDelay)"])
        let library = cluster.scratch.path + "/lib"
        let entries = try await writeLibrary(to: library, scenes: scenes, width: 160, height: 120)
        try cluster.startServe()
        for index in 0..<workers { try cluster.startWorker(index) }
        try await cluster.waitForWorkers(workers)
        return (cluster, library, entries)
    }

    deinit {
        serve?.signal(SIGKILL)
        for worker in workers.values { worker.signal(SIGKILL) }
    }

    func startServe() throws {
        // A short job deadline: if a job ever stalls at a worker, the coordinator's own deadline
        // (rule 3) takes it back well inside the tests' waits. Tests may override it.
        serve = try Child("cull", ["serve", "--db", database, "--work", work, "--control", control,
                                   "--heartbeat-ms", "200", "--liveness", "5", "--job-deadline", "20"] + serveArguments,
                          environment: ["CULL_POOL_WATCHDOG_MS": "1000"], in: scratch.path)
    }

    /// Starts worker `index`; a restarted worker keeps its id (as under systemd), so the
    /// coordinator sees the same worker come back.
    func startWorker(_ index: Int) throws {
        workers[index] = try Child("cull-worker", ["--connect", work, "--id", "worker-\(index)",
                                                   "--heartbeat-ms", "200", "--compute-threads", "1", "--fetch-threads", "2"] + workerArguments,
                                   environment: workerEnvironment, in: scratch.path)
    }

    func cull(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runCommand("cull", arguments + ["--control", control], in: scratch.path, timeout: timeout)
    }

    func status() async throws -> Cull_V1_StatusReply? {
        let result = try await cull(["status", "--format", "json", "--timeout", "2"])
        guard result.status == 0 else { return nil }
        return try Cull_V1_StatusReply(jsonString: result.stdout)
    }

    func startScan(_ root: String) async throws -> Int64 {
        let result = try await cull(["scan", root])
        guard result.status == 0, let id = result.stdout.split(separator: " ").dropFirst().first.flatMap({ Int64($0) }) else {
            throw HarnessError("scan did not start: \(result.stderr)")
        }
        return id
    }

    /// Polls status until `condition` holds for the scan, or fails at the deadline.
    @discardableResult
    func waitFor(scan: Int64, timeout: Duration, _ condition: (Cull_V1_ScanStatus) -> Bool) async throws -> Cull_V1_ScanStatus {
        let deadline = ContinuousClock.now + timeout
        var last: Cull_V1_ScanStatus?
        var finalCheck = false
        // One more look after the deadline: a wait that was never checked (the test process
        // was busy) must not fail.
        while ContinuousClock.now < deadline || !finalCheck {
            finalCheck = ContinuousClock.now >= deadline
            if let reply = try? await status(), let found = reply.scans.first(where: { $0.scanID == scan }) {
                last = found
                if condition(found) { return found }
            }
            if !finalCheck { try await Task.sleep(for: .milliseconds(100)) }
        }
        throw HarnessError("scan \(scan) did not reach the expected state in \(timeout); last: \(String(describing: last))\nserve: \(serve?.stderr.suffix(3000) ?? "")")
    }

    /// Fails with what the daemons said (and whether they still run) if `count` workers have not
    /// joined by the deadline: a worker that never joins is otherwise a bare timeout.
    func waitForWorkers(_ count: Int, timeout: Duration = .seconds(30)) async throws {
        do {
            try await waitUntil("\(count) workers joining", timeout: timeout) {
                if let reply = try? await status(), reply.workers.count >= count { return true }
                return false
            }
        } catch let error as HarnessError {
            func state(_ child: Child?) -> String { child?.isRunning == true ? "running" : "exited" }
            let workerLogs = workers.sorted { $0.key < $1.key }
                .map { "worker \($0.key) (\(state($0.value))):\n\($0.value.stderr.suffix(1500))" }
            throw HarnessError("\(error)\nserve (\(state(serve))):\n\(serve?.stderr.suffix(2500) ?? "not started")\n"
                               + workerLogs.joined(separator: "\n"))
        }
    }

    func groupsCSV(scan: Int64) async throws -> GroupsCSV {
        let result = try await cull(["groups", "--scan", "\(scan)", "--format", "csv"])
        guard result.status == 0 else { throw HarnessError("groups failed: \(result.stderr)") }
        return try GroupsCSV(result.stdout)
    }

    /// Reads the coordinator's SQLite file directly (WAL allows it while the daemon runs).
    func query<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        let pool = try DatabasePool(path: database)
        return try await pool.read(body)
    }
}
