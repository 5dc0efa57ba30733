@testable import Coordinator
import Foundation
import Shared
import Synchronization
import Testing

/// The coordinator's rules, driven in process through the transport seam: every service runs
/// as in `cull serve`, the workers are scripted. Each test takes well under a second.
@Suite("Coordinator in process", .timeLimit(.minutes(1)))
struct CoordinatorInProcessTests {
    /// Time in which a message that must not come would have come (the coordinator answers in
    /// microseconds here); a wait for an absence can only be a bounded wait.
    static let quiet: Duration = .milliseconds(300)

    @Test("a RESULT with a wrong attempt is dropped before it is buffered, frees no credit and stores nothing")
    func wrongAttempt() async throws {
        let harness = try await CoordinatorHarness(photos: 2)
        let mailbox = Mailbox()
        let worker = try await FakeWorker.join("w1", capacity: 1, on: harness, mailbox: mailbox)
        _ = try await harness.startScan()
        let job = try #require(await worker.nextJob())

        worker.send(.result(FakeWorker.result(for: job, attempt: job.attempt + 1000)))
        #expect(await harness.poll { harness.counters.resultsDuplicate == 1 })
        #expect(await worker.nextJob(timeout: Self.quiet) == nil, "its credit is still taken")
        #expect(harness.coordinator.results.count == 0)
        #expect(try await harness.analysedPhotos() == 0)

        worker.send(.result(FakeWorker.result(for: job)))
        let second = try #require(await worker.nextJob(), "the right answer gives the credit back")
        #expect(second.jobID != job.jobID)
        #expect(try await harness.poll { try await harness.analysedPhotos() == 1 })
        await harness.stop()
    }

    @Test("a RESULT for a stale generation does not free the credit of the job still out")
    func staleGeneration() async throws {
        let harness = try await CoordinatorHarness(photos: 2)
        let worker = try await FakeWorker.join("w1", capacity: 1, on: harness, mailbox: Mailbox())
        _ = try await harness.startScan()
        let job = try #require(await worker.nextJob())

        worker.send(.result(FakeWorker.result(for: job, generation: job.generation - 1)))
        #expect(await harness.poll { harness.counters.resultsStale == 1 })
        #expect(await worker.nextJob(timeout: Self.quiet) == nil, "the job is still out: no credit for another")
        #expect(harness.coordinator.scheduler.knownJobIDs().contains(job.jobID), "the job is not orphaned")
        #expect(try await harness.analysedPhotos() == 0)

        worker.send(.result(FakeWorker.result(for: job)))
        #expect(await worker.nextJob() != nil)
        await harness.stop()
    }

    @Test("a worker that goes silent loses its jobs to another worker, under a new attempt")
    func silentWorker() async throws {
        // The test judges by hand (as swift-nio's embedded loop runs by hand): a tick of the
        // monitor's own could come between the clock's jump and alive's next heartbeat.
        let harness = try await CoordinatorHarness(photos: 1) {
            $0.deadlineTick = .seconds(3600)
            $0.heartbeatLiveness = 100  // 100 × 50 ms = 5 s
        }
        let mailbox = Mailbox()
        let silent = try await FakeWorker.join("silent", capacity: 1, on: harness, mailbox: mailbox)
        _ = try await harness.startScan()
        let first = try #require(await silent.nextJob())
        await silent.fallSilent()
        // The inbox is read in order: once "alive" is welcomed, silent's last heartbeat is heard.
        let alive = try await FakeWorker.join("alive", capacity: 1, on: harness, mailbox: mailbox)

        // Six seconds pass for the coordinator (liveness is 100 × 50 ms = 5 s) but not for the
        // test: "alive" beats again at the new time, "silent" stays six seconds behind.
        let clock = harness.coordinator.clock
        clock.advance(by: .seconds(6))
        let scheduler = harness.coordinator.scheduler
        #expect(await harness.poll(timeout: .seconds(30)) { scheduler.worker("alive").map { clock.now - $0.lastHeard < .seconds(1) } ?? false })
        #expect(scheduler.worker("silent") != nil, "nothing is judged before the monitor looks")
        await DeadlineMonitor(harness.coordinator).judge()
        #expect(scheduler.worker("silent") == nil)
        #expect(scheduler.worker("alive") != nil, "a worker that beats is never judged silent")

        let again = try #require(await alive.nextJob(timeout: .seconds(10)))
        #expect(again.jobID == first.jobID && again.attempt > first.attempt)

        silent.send(.result(FakeWorker.result(for: first)))  // too late: unknown worker now
        alive.send(.result(FakeWorker.result(for: again)))
        #expect(try await harness.poll { try await harness.analysedPhotos() == 1 })
        let scan = try #require(try await harness.store.scans(limit: 1).first)
        #expect(try await harness.poll { try await harness.store.scan(id: scan.id)?.state == .done })
        await harness.stop()
    }

    @Test("a cancel while jobs are out: workers are told which attempts to stop, nothing late is stored, credit comes back with the answers")
    func cancelWhileOut() async throws {
        let harness = try await CoordinatorHarness(photos: 3)
        let worker = try await FakeWorker.join("w1", capacity: 2, on: harness, mailbox: Mailbox())
        let scan = try await harness.startScan()
        let jobs = [try #require(await worker.nextJob()), try #require(await worker.nextJob())]

        #expect(try await harness.coordinator.cancelScan(id: scan.id)?.cancelledNow == true)
        guard case .cancelJobs(let cancel)? = await worker.next(timeout: .seconds(2), { if case .cancelJobs = $0 { true } else { false } }) else {
            Issue.record("no CANCEL_JOBS")
            return
        }
        #expect(Set(zip(cancel.jobIds, cancel.attempts).map { "\($0)/\($1)" }) == Set(jobs.map { "\($0.jobID)/\($0.attempt)" }))

        // A second library: its job waits until the worker answers the cancelled ones.
        let other = harness.library + "-other"
        try CoordinatorHarness.writeLibrary(at: other, photos: 1)
        defer { try? FileManager.default.removeItem(atPath: other) }
        _ = try await harness.startScan(other)
        #expect(await worker.nextJob(timeout: Self.quiet) == nil, "the worker still holds two cancelled jobs")
        for job in jobs { worker.send(.result(FakeWorker.result(for: job))) }
        let next = try #require(await worker.nextJob())
        #expect(!jobs.map(\.jobID).contains(next.jobID))
        #expect(try await harness.analysedPhotos() == 0, "a cancelled scan's results are never stored")
        #expect(try await harness.store.scan(id: scan.id)?.state == .cancelled)
        await harness.stop()
    }

    @Test("a flood of RESULTs that are not the dispatch in flight stays out of the buffer and out of SQLite")
    func flood() async throws {
        // A small inbox, so the flood is eight times what it holds: a peer faster than the
        // coordinator meets backpressure.
        let harness = try await CoordinatorHarness(photos: 1, inbox: 256)
        let worker = try await FakeWorker.join("w1", capacity: 1, on: harness, mailbox: Mailbox())
        _ = try await harness.startScan()
        let job = try #require(await worker.nextJob())

        let flood = 2_048
        var sent = 0
        var highest = 0
        while sent < flood {
            var forged = FakeWorker.result(for: job, attempt: Int64(sent % 7 == 0 ? 0 : job.attempt + 1))
            if sent % 2 == 0 { forged.jobID = Int64(1_000_000 + sent) }
            if harness.work.deliver([Array("w1".utf8)] + WireCodec.encode(.result(forged))) {
                sent += 1
            } else {
                await Task.yield()  // the coordinator reads at its pace: backpressure, not loss
            }
            highest = max(highest, harness.coordinator.results.count)
        }
        #expect(await harness.poll { harness.counters.resultsDuplicate == UInt64(flood) })
        #expect(highest == 0, "nothing forged was ever buffered")
        worker.send(.result(FakeWorker.result(for: job)))
        #expect(try await harness.poll { try await harness.analysedPhotos() == 1 })
        await harness.stop()
    }

    @Test("the result buffer holds at most its capacity: a writer past it waits for room")
    func resultBufferBound() async throws {
        let buffer = ResultBuffer(capacity: 3)
        let result = ReceivedResult(result: Cull_V1_Result(), workerID: "w", pipelineVersion: 3)
        for _ in 0..<3 { try await buffer.append(result) }
        let appended = Mutex(false)
        let fourth = Task {
            try await buffer.append(result)
            appended.withLock { $0 = true }
        }
        // An absence can only be shown by waiting a bounded time.
        try await Task.sleep(for: Self.quiet)
        #expect(!appended.withLock { $0 }, "the fourth waits")
        #expect(buffer.count == 3)
        #expect(buffer.takeAll().count == 3)
        try await fourth.value
        #expect(buffer.count == 1)
    }
}
