import Synchronization

/// Runs blocking work (file reads, decoding, directory walks) on threads of its own, and lets
/// async code await the result without ever occupying a cooperative thread.
///
/// This is the postmortem's bridge, "a queue of its own + continuation", with its two guards
/// built in:
/// - the continuation sits behind a `ResumeOnce`, because the work, the timeout and task
///   cancellation may all try to complete it;
/// - an optional hard timeout resumes the caller with `TimeoutError` even if the work never
///   returns. Such work is *abandoned*: its thread is still stuck in the kernel and cannot be
///   killed (rule 6), so it is counted, and `abandoned` tells the owner when to recycle the
///   process.
///
/// Concurrency is bounded by a FIFO `ConcurrencyLimiter`, so no more than `limit` items run at
/// once however many callers arrive (rule 5). A timed-out item gives its permit back at once
/// (a stuck read must not shrink the queue forever) and the queue starts a thread to replace
/// the stuck one, up to `limit + maxStuckThreads` threads in all.
///
/// The threads are the queue's own, not libdispatch's: on Linux the global dispatch pool does
/// not grow when its threads block, so blocked reads there would starve every other dispatch
/// user in the process, timers included.
public final class BlockingQueue: Sendable {
    public let label: String
    public let limiter: ConcurrencyLimiter
    private let threads: ThreadPool
    private let abandonedNow = Atomic<Int>(0)
    private let abandonedEver = Atomic<Int>(0)

    public init(label: String, limit: Int, maxStuckThreads: Int = 64) {
        self.label = label
        self.limiter = ConcurrencyLimiter(limit: limit)
        self.threads = ThreadPool(label: label, maxThreads: limit + maxStuckThreads)
    }

    /// Items that timed out and are still running (stuck) right now.
    public var abandoned: Int { abandonedNow.load(ordering: .relaxed) }

    /// Items that ever timed out.
    public var abandonedTotal: Int { abandonedEver.load(ordering: .relaxed) }

    /// Items running or waiting for a permit.
    public var inFlight: Int { limiter.inUse + limiter.waiting }

    /// Runs `work` on this queue and returns its result.
    ///
    /// - Parameters:
    ///   - timeout: a hard deadline; past it the caller resumes with `TimeoutError` and the
    ///     work is abandoned. `nil` waits for the work however long it takes.
    ///   - operation: names the work in the timeout's message.
    public func run<T: Sendable>(
        timeout: Duration? = nil,
        operation: String = "operation",
        _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await limiter.acquire()
        let item = Item(limiter)
        let slot = SendableBox<ResumeOnce<T>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let once = ResumeOnce(continuation)
                slot.value.withLock { $0 = once }
                // Cancelled before the slot was filled: the handler found nothing to resume.
                if item.wasCancelled { once.resume(throwing: CancellationError()) }
                // The timer is armed before the work is submitted, so the work's end always
                // finds its token to cancel.
                if let timeout {
                    item.timer = TimerThread.shared.schedule(after: timeout) {
                        guard item.giveUp(.timedOut) else { return }
                        self.abandonedNow.add(1, ordering: .relaxed)
                        self.abandonedEver.add(1, ordering: .relaxed)
                        once.resume(throwing: TimeoutError(operation: operation, timeout: timeout))
                        item.releasePermit()
                    }
                }
                threads.submit {
                    let result = Result { try work() }
                    if item.finish() == .timedOut {
                        // The caller gave up on this item earlier; it is no longer stuck.
                        self.abandonedNow.subtract(1, ordering: .relaxed)
                    }
                    if let timer = item.timer { TimerThread.shared.cancel(timer) }
                    once.resume(with: result)
                    item.releasePermit()
                }
            }
        } onCancel: {
            // The caller stops waiting; the work keeps its permit until it really ends.
            if item.giveUp(.cancelled) {
                slot.value.withLock { $0 }?.resume(throwing: CancellationError())
            }
        }
    }
}

/// The life of one item: the work finishing, the timeout and cancellation race to move it out
/// of `.running`, and only the winner acts on it.
private final class Item: Sendable {
    enum Phase { case running, finished, timedOut, cancelled }

    private let phase = Mutex(Phase.running)
    private let limiter: ConcurrencyLimiter
    private let released = Atomic<Bool>(false)
    private let timerToken = Mutex<TimerThread.Token?>(nil)

    /// The item's timeout, cancelled when the work ends first.
    var timer: TimerThread.Token? {
        get { timerToken.withLock { $0 } }
        set { timerToken.withLock { $0 = newValue } }
    }

    init(_ limiter: ConcurrencyLimiter) { self.limiter = limiter }

    /// The work returned; returns the phase it was in.
    func finish() -> Phase {
        phase.withLock { phase in
            defer { phase = .finished }
            return phase
        }
    }

    var wasCancelled: Bool { phase.withLock { $0 == .cancelled } }

    /// The caller gives up (timeout or cancellation); true if the work was still running.
    func giveUp(_ reason: Phase) -> Bool {
        phase.withLock { phase in
            guard phase == .running else { return false }
            phase = reason
            return true
        }
    }

    /// Gives the permit back, once.
    func releasePermit() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) {
            limiter.release()
        }
    }
}

/// A Mutex-guarded slot shared between a continuation's body and its cancellation handler.
final class SendableBox<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
