import Foundation
import GRDB
import Testing

/// Issue 11, point 6: on SIGTERM a worker stops taking work and hands back what it holds at
/// once (a goodbye the coordinator acts on), well inside systemd's `TimeoutStopSec=20`, even
/// with reads in progress; another worker finishes the scan and nothing is recorded failed.
@Suite("SIGTERM hands work back", .serialized, .timeLimit(.minutes(3)))
struct StopHandBackTests {
    @Test("a worker stopped mid-read exits within 5 s, its jobs are requeued at once (not at their deadline), and the scan completes elsewhere")
    func handsBack() async throws {
        // Reads of 4 s: the worker is certainly inside one when it is told to stop.
        let (cluster, library, entries) = try await Cluster.slowScans(readDelay: 4000, scenes: 2, workers: 1)
        let scan = try await cluster.startScan(library)
        try await waitUntil("the worker holds jobs") {
            (try await cluster.status()?.workers.first?.inFlightJobs ?? 0) > 0
        }
        let requeuedBefore = try #require(try await cluster.status()).counters.jobsRequeued
        let stopped = ContinuousClock.now
        let worker = try #require(cluster.workers[0])
        worker.signal(SIGTERM)
        let status = await worker.wait(timeout: .seconds(15))
        let exitTime = ContinuousClock.now - stopped
        #expect(status == 0, "exit status \(String(describing: status)): \(worker.stderr.suffix(2000))")
        #expect(exitTime < .seconds(5), "exited after \(exitTime)")
        try await waitUntil("its jobs requeued", timeout: .seconds(5)) {
            (try await cluster.status()?.counters.jobsRequeued ?? 0) > requeuedBefore
        }
        let handBack = ContinuousClock.now - stopped
        print("SIGTERM hand-back: worker exited after \(exitTime), jobs requeued within \(handBack) (job deadline 20 s)")
        #expect(handBack < .seconds(6), "requeued after \(handBack), not at the 20 s job deadline")
        // A worker without the slow reads finishes the scan.
        cluster.workerEnvironment = [:]
        try cluster.startWorker(1)
        let done = try await cluster.waitFor(scan: scan, timeout: .seconds(60)) { $0.state == "done" }
        #expect(done.done == Int64(entries.count), "\(done)")
        // The library's deliberately broken files fail as corrupt or unsupported; nothing failed
        // for the stop (a timeout, a lost worker, an internal error).
        let failedByStop = try await cluster.query { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photos WHERE status = 'failed' AND error_kind IN ('timeout', 'worker_lost', 'internal')") ?? -1
        }
        #expect(failedByStop == 0)
    }
}
