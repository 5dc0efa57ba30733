import Dispatch
import Foundation
import Shared
import Synchronization
import Testing

@Suite("BlockingQueue", .timeLimit(.minutes(2)))
struct BlockingQueueTests {
    @Test("work that never returns times out, is counted as abandoned, and is forgotten once it ends")
    func timeoutAndAbandonment() async throws {
        let queue = BlockingQueue(label: "test.fetch", limit: 2)
        let gate = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        await #expect(throws: TimeoutError.self) {
            try await queue.run(timeout: .milliseconds(100), operation: "stuck read") {
                gate.wait()  // blocks a queue thread, never a cooperative one
                return 1
            }
        }
        // The timeout fired while the work was still blocked (the gate is still closed); the
        // bound is loose because other tests load this process's cooperative pool (at the
        // suite's start the CPU-bound analysis tests hold it for tens of seconds).
        #expect(ContinuousClock.now - started < .seconds(90))
        #expect(queue.abandoned == 1)
        #expect(queue.abandonedTotal == 1)
        // The permit came back at the timeout: the queue still runs work.
        let value = try await queue.run(timeout: .seconds(5)) { 7 }
        #expect(value == 7)
        gate.signal()
        let deadline = ContinuousClock.now + .seconds(5)
        while queue.abandoned != 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(queue.abandoned == 0)
        #expect(queue.abandonedTotal == 1)
    }

    @Test("errors thrown by the work reach the caller")
    func errorsPropagate() async {
        struct Boom: Error {}
        let queue = BlockingQueue(label: "test.errors", limit: 1)
        await #expect(throws: Boom.self) { try await queue.run { throw Boom() } }
    }

    @Test("blocked work on the queue leaves the cooperative pool free")
    func cooperativePoolStaysFree() async throws {
        // More blocked items than the machine has cores: if they ran on the cooperative pool,
        // the ticking task below could never run.
        let blocked = ProcessInfo.processInfo.activeProcessorCount * 4
        let queue = BlockingQueue(label: "test.pool", limit: blocked)
        let gate = DispatchSemaphore(value: 0)
        let ticks = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<blocked {
                group.addTask { _ = try await queue.run(timeout: .seconds(20)) { gate.wait() } }
            }
            while queue.limiter.inUse < blocked { try await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<20 {
                try await Task.sleep(for: .milliseconds(1))
                ticks.enter()
            }
            #expect(ticks.current.load(ordering: .relaxed) == 20)
            for _ in 0..<blocked { gate.signal() }
            try await group.waitForAll()
        }
    }

    @Test("the limit bounds how many items run at once")
    func limit() async throws {
        let queue = BlockingQueue(label: "test.limit", limit: 2)
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await queue.run {
                        tally.enter()
                        usleep(2000)
                        tally.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(tally.peak.load(ordering: .relaxed) == 2)
    }
}
