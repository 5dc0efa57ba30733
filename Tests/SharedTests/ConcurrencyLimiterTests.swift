import Shared
import Synchronization
import Testing

@Suite("ConcurrencyLimiter", .timeLimit(.minutes(2)))
struct ConcurrencyLimiterTests {
    @Test("waiters are admitted in the order they arrived")
    func fifoOrder() async throws {
        let limiter = ConcurrencyLimiter(limit: 1)
        try await limiter.acquire()  // hold the only permit
        let order = Log<Int>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await limiter.acquire()
                    order.append(index)
                    limiter.release()
                }
                // Wait until this waiter is queued, so arrival order is known.
                while limiter.waiting < index + 1 { await Task.yield() }
            }
            limiter.release()
            try await group.waitForAll()
        }
        #expect(order.all == Array(0..<20))
        #expect(limiter.inUse == 0)
    }

    @Test("never more than the limit inside at once")
    func bound() async throws {
        let limiter = ConcurrencyLimiter(limit: 3)
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await limiter.withPermit {
                        tally.enter()
                        try await Task.sleep(for: .milliseconds(1))
                        tally.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(tally.peak.load(ordering: .relaxed) <= 3)
        #expect(tally.peak.load(ordering: .relaxed) >= 2, "the limiter should let several in")
        #expect(limiter.inUse == 0)
    }

    @Test("a cancelled waiter leaves without taking a permit")
    func cancellation() async throws {
        let limiter = ConcurrencyLimiter(limit: 1)
        try await limiter.acquire()
        let waiter = Task { try await limiter.acquire() }
        while limiter.waiting < 1 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(limiter.waiting == 0)
        limiter.release()
        #expect(limiter.inUse == 0, "the cancelled waiter must not have been handed the permit")
        try await limiter.acquire()  // and the permit is still usable
        limiter.release()
    }

    @Test("cancellation before queueing is honoured too")
    func cancelledBeforeQueueing() async throws {
        let limiter = ConcurrencyLimiter(limit: 1)
        try await limiter.acquire()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limiter.acquire()
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(limiter.waiting == 0)
        limiter.release()
        #expect(limiter.inUse == 0)
    }

    @Test("a permit returned while a waiter is queueing is not lost")
    func noLostWakeUp() async throws {
        // Two tasks ping-pong one permit many times. A permit released in the instant between
        // a waiter's first look and its queueing used to be kept as "available" while the
        // waiter slept: both tasks then waited forever.
        let limiter = ConcurrencyLimiter(limit: 1)
        let finished = try await withThrowingTaskGroup(of: Bool.self, returning: Bool.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<20_000 {
                        try await limiter.acquire()
                        limiter.release()
                    }
                    return true
                }
            }
            group.addTask { try await Task.sleep(for: .seconds(60)); return false }
            for _ in 0..<3 { guard try await group.next() == true else { return false } }
            group.cancelAll()
            return true
        }
        #expect(finished, "every task got through")
        #expect(limiter.inUse == 0 && limiter.waiting == 0)
    }
}
