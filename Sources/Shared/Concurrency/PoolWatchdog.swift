import Dispatch
import Logging
import Synchronization

/// Notices when Swift concurrency's cooperative pool stops running tasks: the postmortem's
/// failure signature ("global async standstill, zero crash logs, near-idle CPU").
///
/// The `TimerThread` (a thread of its own, not a cooperative one) starts a trivial probe task and
/// checks, on each tick, whether the previous probe has run. A probe still waiting after
/// `threshold` means every cooperative thread is busy or blocked: that is logged, with what to
/// look for, and counted. Daemons run one always; the integration tests fail on any stall.
public final class PoolWatchdog: Sendable {
    private struct State {
        var probeStartedAt: DispatchTime?
        var reportedCurrentStall = false
    }

    public let threshold: Duration
    private let logger: Logger
    private let state = Mutex(State())
    private let stallCount = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let interval: Duration

    public init(threshold: Duration, interval: Duration = .milliseconds(100), logger: Logger) {
        self.threshold = threshold
        self.interval = interval
        self.logger = logger
        schedule()
    }

    /// Stalls seen so far.
    public var stalls: Int { stallCount.load(ordering: .relaxed) }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func schedule() {
        // The timer thread, not a dispatch queue: on Linux those share threads with the very
        // pool being watched, and would stall with it.
        TimerThread.shared.schedule(after: interval) { [weak self] in
            guard let self, !self.stopped.load(ordering: .relaxed) else { return }
            self.tick()
            self.schedule()
        }
    }

    private func tick() {
        let now = DispatchTime.now()
        let (startProbe, stalledFor) = state.withLock { state -> (Bool, Duration?) in
            guard let started = state.probeStartedAt else {
                state.probeStartedAt = now
                state.reportedCurrentStall = false
                return (true, nil)
            }
            let waited = Duration.nanoseconds(Int64(now.uptimeNanoseconds - started.uptimeNanoseconds))
            guard waited >= threshold, !state.reportedCurrentStall else { return (false, nil) }
            state.reportedCurrentStall = true
            return (false, waited)
        }
        if startProbe {
            Task.detached { [weak self] in
                self?.state.withLock { $0.probeStartedAt = nil }
            }
        }
        if let stalledFor {
            stallCount.add(1, ordering: .relaxed)
            logger.error("cooperative pool stalled: a trivial task has waited \(stalledFor.millisecondsDescription) for a thread. Something is blocking Swift concurrency threads (a blocking call outside the fetch/compute queues); this is a bug, please report it with a stack dump (kill -QUIT or gdb -p)")
        }
    }
}

extension PoolWatchdog {
    /// The daemons' watchdog, as `DaemonOptions` set it (`--watchdog`, CULL_POOL_WATCHDOG_MS,
    /// default 2 s; 0 turns it off).
    public static func forDaemon(_ options: DaemonOptions, environment: [String: String], logger: Logger) -> PoolWatchdog? {
        options.watchdogThreshold(environment: environment).map { PoolWatchdog(threshold: $0, logger: logger) }
    }
}
