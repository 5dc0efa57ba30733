@testable import Worker
import Foundation
import Shared
import Testing

/// The worker's rules, driven in process through the transport seam: real photos, real fetch
/// and compute queues, a scripted coordinator.
@Suite("Worker in process", .timeLimit(.minutes(1)))
struct WorkerChannelTests {
    @Test("a job is answered with one outcome per photo, features for a photo, a failure for a missing file")
    func answersJobs() async throws {
        let harness = try WorkerHarness()
        try await harness.welcome()
        let good = try harness.photo("good", seed: 1)
        harness.deliver(.job(WorkerHarness.job(1, attempt: 7, photos: [(10, good), (11, harness.folder + "/missing.jpg")])))
        let result = try #require(await harness.nextResult())
        #expect(result.jobID == 1 && result.attempt == 7 && result.generation == 1)
        let byPhoto = Dictionary(uniqueKeysWithValues: result.outcomes.map { ($0.photoID, $0) })
        #expect(byPhoto[10]?.features.sha256.count == 32)
        #expect(byPhoto[11]?.failure.kind == .unreadable)
        await harness.stop()
    }

    @Test("the worker enforces its own capacity: a job past it is refused, not run")
    func capacity() async throws {
        let harness = try WorkerHarness(capacity: 1, faults: [FaultInjection.variable: "hang-read=slow"])
        try await harness.welcome()
        let held = try harness.photo("slow", seed: 2)
        let other = try harness.photo("other", seed: 3)
        harness.deliver(.job(WorkerHarness.job(1, attempt: 1, photos: [(1, held)], fetchTimeoutMs: 500)))
        harness.deliver(.job(WorkerHarness.job(2, attempt: 1, photos: [(2, other)])))
        let refusal = try #require(await harness.next { if case .protocolError = $0 { true } else { false } })
        guard case .protocolError(let error) = refusal else { return }
        #expect(error.message.contains("job 2") && error.message.contains("capacity"))
        // The held job times out its read and is answered; job 2 never ran.
        let result = try #require(await harness.nextResult())
        #expect(result.jobID == 1 && result.outcomes.first?.failure.kind == .timeout)
        #expect(await harness.nextResult(timeout: .milliseconds(300)) == nil, "the refused job was never run")
        await harness.stop()
    }

    @Test("jobs are keyed by (job, attempt): a cancel for the old attempt does not touch the new one, and a cancelled job is still answered")
    func attemptsAreDistinct() async throws {
        let harness = try WorkerHarness(capacity: 2, faults: [FaultInjection.variable: "hang-read=held"])
        try await harness.welcome()
        let held = try harness.photo("held", seed: 4)
        let fresh = try harness.photo("fresh", seed: 5)
        // Attempt 1 hangs on its read; the coordinator requeued the job as attempt 2.
        harness.deliver(.job(WorkerHarness.job(9, attempt: 1, photos: [(1, held)], fetchTimeoutMs: 800)))
        harness.deliver(.job(WorkerHarness.job(9, attempt: 2, photos: [(1, fresh)])))
        harness.deliver(.cancelJobs(.with { $0.jobIds = [9]; $0.attempts = [1]; $0.reason = "deadline passed" }))
        let answers = [try #require(await harness.nextResult()), try #require(await harness.nextResult())]
        let byAttempt = Dictionary(uniqueKeysWithValues: answers.map { ($0.attempt, $0) })
        #expect(byAttempt[2]?.outcomes.first?.features.sha256.count == 32, "attempt 2 ran to the end")
        #expect(byAttempt[1]?.outcomes.first?.failure.message.contains("cancelled") == true,
                "the cancelled attempt stopped, and is answered so the coordinator can free its credit")
        #expect(harness.worker.state.withLock { $0.jobsInFlight.isEmpty && $0.cancelledJobs.isEmpty })
        await harness.stop()
    }

    @Test("garbage from the peer is dropped and the worker keeps working")
    func garbage() async throws {
        let harness = try WorkerHarness()
        try await harness.welcome()
        for size in 0..<50 { _ = harness.transport.deliver([Array(repeating: UInt8(size), count: size)]) }
        _ = harness.transport.deliver([WireProtocol.header, [0xFF, 0x00, 0x13]])
        let photo = try harness.photo("after", seed: 6)
        harness.deliver(.job(WorkerHarness.job(3, attempt: 1, photos: [(1, photo)])))
        #expect(await harness.nextResult()?.jobID == 3)
        #expect(harness.worker.exitStatus == .normal)
        await harness.stop()
    }

    @Test("UNKNOWN_PEER makes the worker say HELLO again; a goodbye without retry stops it")
    func helloAgainAndGoodbye() async throws {
        let harness = try WorkerHarness()
        try await harness.welcome()
        harness.deliver(.protocolError(.with { $0.code = .unknownPeer; $0.message = "say HELLO" }))
        #expect(await harness.next { if case .hello = $0 { true } else { false } } != nil)
        harness.deliver(.disconnect(.with { $0.reason = "bye"; $0.retry = false }))
        let closed = await withTimeout(.seconds(5)) {
            while !harness.transport.isShutDown { try? await Task.sleep(for: .milliseconds(10)) }
            return true
        }
        #expect(closed == true, "the worker closed its transport")
        #expect(harness.worker.exitStatus == .normal)
        await harness.stop()
    }
}
