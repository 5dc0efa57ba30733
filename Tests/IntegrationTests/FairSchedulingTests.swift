import Analysis
import Foundation
import GRDB
import Shared
import Testing

/// Issue 11, point 4: workers that say HELLO with a huge capacity, heartbeat, and sit on the
/// jobs they get must not keep an honest worker from finishing a scan. With the ordinary job
/// deadline (300 s) alone they would hold their jobs for five minutes; on probation
/// (`Probation`) they hold them only as long as answering workers take, then are quarantined.
@Suite("Fair scheduling under silent workers", .serialized, .timeLimit(.minutes(8)))
struct FairSchedulingTests {
    /// Scans `root` and returns how long until every photo has an outcome.
    func timeToAnalyse(_ cluster: Cluster, _ root: String, photos: Int, timeout: Duration) async throws -> Duration {
        let start = ContinuousClock.now
        let scan = try await cluster.startScan(root)
        let done = try await cluster.waitFor(scan: scan, timeout: timeout) { $0.total == Int64(photos) && $0.done == Int64(photos) }
        let elapsed = ContinuousClock.now - start
        #expect(done.failed == 0, "no photo given up on")
        return elapsed
    }

    @Test("fifty workers that heartbeat and hold their jobs without answering: one honest worker still finishes the scan within 3× its undisturbed time, every photo analysed")
    func fiftySilentWorkers() async throws {
        let cluster = try Cluster(serveArguments: ["--job-deadline", "300"])
        // Two copies of one library: the second scan analyses every photo again.
        let quiet = cluster.scratch.path + "/quiet", crowded = cluster.scratch.path + "/crowded"
        let photos = try await writeLibrary(to: quiet, scenes: 100, width: 160, height: 120, extras: false).count
        try await onOwnThread { try FileManager.default.copyItem(atPath: quiet, toPath: crowded) }
        try cluster.startServe()
        try cluster.startWorker(0)
        // Generous: at the start of a full parallel run this process and its children share two
        // cores with every other suite.
        try await cluster.waitForWorkers(1, timeout: .seconds(120))

        let undisturbed = try await timeToAnalyse(cluster, quiet, photos: photos, timeout: .seconds(120))

        // The crowd runs in a process of its own (`cull-bench silent-workers`): fifty sockets in
        // the test process itself pushed its file descriptors past what Foundation's Process
        // can start children with.
        let statusFile = cluster.scratch.path + "/crowd.status"
        let crowd = try Child("cull-bench", ["silent-workers", "--connect", cluster.work, "--count", "50", "--status-file", statusFile],
                              in: cluster.scratch.path)
        defer { crowd.signal(SIGKILL) }
        try await cluster.waitForWorkers(51, timeout: .seconds(120))
        let disturbed = try await timeToAnalyse(cluster, crowded, photos: photos, timeout: undisturbed * 3 + .seconds(30))
        let status = (try? String(contentsOfFile: statusFile, encoding: .utf8)) ?? ""
        let held = Int(status.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").last ?? "") ?? 0
        let workers = try await cluster.status()?.workers ?? []

        print("fair scheduling: \(photos) photos, undisturbed \(undisturbed), beside 50 silent workers \(disturbed) (\(held) jobs held by them)")
        #expect(held >= 20, "the silent workers did get jobs to sit on: \(held)")
        #expect(disturbed <= undisturbed * 3, "undisturbed \(undisturbed), with the silent crowd \(disturbed)")
        let quarantined = workers.filter { $0.workerID.hasPrefix("silent-") && $0.missedDeadlines > 0 }
        #expect(quarantined.count >= 25, "the workers that sat on jobs were marked: \(quarantined.count) of 50")
        let analysed = try await cluster.query { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photos WHERE status = 'analysed' AND path LIKE ?", arguments: ["%/crowded/%"]) ?? 0
        }
        #expect(analysed == photos)
    }
}
