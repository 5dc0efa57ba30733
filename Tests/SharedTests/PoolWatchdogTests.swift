import Foundation
import Logging
import Shared
import Testing

@Suite("Pool watchdog", .serialized, .timeLimit(.minutes(2)))
struct PoolWatchdogTests {
    // (That an unblocked pool stays quiet is checked in the daemons, by the end-to-end tests:
    // in this process other tests block the pool on purpose.)
    @Test("reports a pool whose every thread is blocked")
    func detectsStall() async throws {
        let watchdog = PoolWatchdog(threshold: .milliseconds(300), interval: .milliseconds(50), logger: Logger(label: "test"))
        defer { watchdog.stop() }
        let before = watchdog.stalls
        // Deliberately break rule 1: block more cooperative threads than there can be.
        let width = ProcessInfo.processInfo.activeProcessorCount * 2
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<width { group.addTask { usleep(1_000_000) } }
        }
        // The watchdog's probe may report just after the pool frees up: poll for it.
        let deadline = ContinuousClock.now + .seconds(5)
        while watchdog.stalls <= before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(watchdog.stalls > before, "the blocked pool was noticed")
    }
}
