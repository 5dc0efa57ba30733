import Analysis
import Foundation
import GRDB
import Shared
import Testing

@Suite("Chaos", .serialized, .timeLimit(.minutes(10)))
struct ChaosTests {
    /// ≥ 2,000 photos, 4 workers; a random worker is killed with SIGKILL every second and
    /// restarted; the coordinator is killed with SIGKILL twice and restarted. At the end every
    /// photo has exactly one outcome for the final generation, no stored outcome came from a
    /// stale attempt or generation, and the groups equal an undisturbed run's.
    @Test("kill -9 workers every second and the coordinator twice; the outcome is as if nothing happened")
    func chaos() async throws {
        let cluster = try Cluster(
            serveArguments: ["--job-size", "8", "--max-attempts", "8", "--job-deadline", "30"],
            workerEnvironment: ["CULL_WORKER_FAULTS": "read-delay-ms=40"],
            workerArguments: ["--fetch-threads", "4", "--capacity", "2"])
        let library = cluster.scratch.path + "/lib"
        let entries = try await writeLibrary(to: library, scenes: 290, width: 128, height: 96)
        #expect(entries.count >= 2_000)

        // The reference: an undisturbed run of the same library.
        let reference = try await runCommand("cull", ["run", library, "--db", cluster.scratch.path + "/reference.sqlite", "--format", "csv"],
                                             in: cluster.scratch.path, timeout: .seconds(300))
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try GroupsCSV(reference.stdout).partition

        try cluster.startServe()
        for index in 0..<4 { try cluster.startWorker(index) }
        try await cluster.waitForWorkers(4)
        let scan = try await cluster.startScan(library)

        var generator = SystemRandomNumberGenerator()
        var coordinatorKills = 0
        var workerKills = 0
        let deadline = ContinuousClock.now + .seconds(300)
        var finished: Cull_V1_ScanStatus?
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(1))
            let victim = Int.random(in: 0..<4, using: &generator)
            cluster.workers[victim]?.signal(SIGKILL)
            _ = await cluster.workers[victim]?.wait(timeout: .seconds(5))
            try cluster.startWorker(victim)
            workerKills += 1

            let progress = try? await cluster.status()?.scans.first { $0.scanID == scan }
            if let progress, progress.state != "running" {
                finished = progress
                break
            }
            let fraction = progress.map { $0.total > 0 && $0.walkComplete ? Double($0.done) / Double($0.total) : 0 } ?? 0
            if (coordinatorKills == 0 && fraction >= 0.25) || (coordinatorKills == 1 && fraction >= 0.6) {
                cluster.serve?.signal(SIGKILL)
                _ = await cluster.serve?.wait(timeout: .seconds(5))
                try await Task.sleep(for: .milliseconds(300))
                try cluster.startServe()
                coordinatorKills += 1
            }
        }
        let final = try #require(finished, "the scan did not finish in time; serve: \(cluster.serve?.stderr.suffix(2000) ?? "")")
        #expect(final.state == "done")
        #expect(coordinatorKills == 2, "the coordinator was killed twice mid-scan")
        #expect(workerKills >= 5)
        #expect(final.total == Int64(entries.count))
        #expect(final.done == Int64(entries.count))

        let generation = final.generation
        let audit = try await cluster.query { db -> [String: Int] in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql, arguments: [generation]) ?? -1 }
            return [
                "photos": try count("SELECT COUNT(*) FROM photos p JOIN photo_seen s ON s.photo_id = p.id WHERE s.seen_generation = ?"),
                "without an outcome": try count("""
                    SELECT COUNT(*) FROM photos p JOIN photo_seen s ON s.photo_id = p.id WHERE s.seen_generation = ? AND p.status = 'pending'
                    """),
                "from another generation": try count("""
                    SELECT COUNT(*) FROM photos p JOIN photo_seen s ON s.photo_id = p.id
                    WHERE s.seen_generation = ? AND p.analysed_generation != s.seen_generation
                    """),
                "from a stale attempt": try count("""
                    SELECT COUNT(*) FROM photos p JOIN photo_seen s ON s.photo_id = p.id JOIN jobs j ON j.id = p.analysed_job_id
                    WHERE s.seen_generation = ? AND p.analysed_attempt != j.attempt
                    """),
                "with no recorded dispatch": try count("""
                    SELECT COUNT(*) FROM photos p JOIN photo_seen s ON s.photo_id = p.id WHERE s.seen_generation = ? AND p.analysed_job_id IS NULL
                    """),
            ]
        }
        #expect(audit["photos"] == entries.count, "\(audit)")
        #expect(audit["without an outcome"] == 0, "\(audit)")
        #expect(audit["from another generation"] == 0, "\(audit)")
        #expect(audit["from a stale attempt"] == 0, "\(audit)")
        #expect(audit["with no recorded dispatch"] == 0, "\(audit)")
        let counters = try #require(try await cluster.status()).counters
        print("chaos: \(workerKills) worker kills, \(coordinatorKills) coordinator kills; results applied \(counters.resultsApplied), dropped stale \(counters.resultsStale), dropped duplicate \(counters.resultsDuplicate), requeued \(counters.jobsRequeued) (since the last restart)")

        let groups = try await cluster.groupsCSV(scan: scan)
        #expect(groups.partition == expected, "the groups equal an undisturbed run's")
    }
}
