@testable import Coordinator
import Foundation
import Synchronization

/// How long a grouping spends in each step, for the benchmarks: a thread of its own looks at
/// the progress every 10 ms and notes when the step changes (to 10 ms, enough beside steps of
/// seconds).
final class StepTimer: Sendable {
    private let progress: GroupingProgress
    private let state = Mutex<(running: Bool, current: GroupingProgress.Step, since: ContinuousClock.Instant,
                               seconds: [(step: GroupingProgress.Step, seconds: Double)])>(
        (true, .starting, ContinuousClock.now, []))
    private let stopped = DispatchSemaphore(value: 0)

    init(_ progress: GroupingProgress) {
        self.progress = progress
        let thread = Thread { [self] in
            while self.look() { Thread.sleep(forTimeInterval: 0.01) }
            self.stopped.signal()
        }
        thread.start()
    }

    /// Notes a change of step; false once stopped.
    private func look() -> Bool {
        let step = progress.snapshot.step
        return state.withLock { state in
            if step != state.current { state.seconds.append((state.current, Self.seconds(since: state.since))); state.current = step; state.since = .now }
            return state.running
        }
    }

    /// The seconds spent in each step, in order, the last step's to now.
    func stop() -> [(step: GroupingProgress.Step, seconds: Double)] {
        let seconds = state.withLock { state in
            state.running = false
            return state.seconds + [(state.current, Self.seconds(since: state.since))]
        }
        stopped.wait()
        return seconds
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
