import Synchronization

/// The time the coordinator judges job deadlines and worker silence by: the continuous clock
/// plus an offset that only tests move (`advance(by:)`), as swift-nio's embedded event loop
/// lets a test advance time by hand instead of waiting it out.
///
/// The stall guard does not use it: it measures this process's own pauses in real time, and a
/// test's jump must not look like one.
final class CoordinatorClock: Sendable {
    private let offset = Mutex<Duration>(.zero)

    init() {}

    var now: ContinuousClock.Instant { ContinuousClock.now + offset.withLock { $0 } }

    /// Every deadline and every silence from now on is judged as if `duration` more had passed.
    func advance(by duration: Duration) {
        precondition(duration >= .zero, "time only moves forward")
        offset.withLock { $0 += duration }
    }
}
