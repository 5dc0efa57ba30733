import Foundation

/// Runs callbacks at deadlines from one dedicated thread.
///
/// Hard timeouts (rule 3) must fire even when everything else is stuck. On Linux, Swift
/// concurrency's cooperative pool and libdispatch's global queues share threads, so a timer
/// scheduled with `asyncAfter` can be delayed for as long as that pool is blocked: exactly when
/// it is needed. This thread belongs to no pool; it only sleeps and calls back. Callbacks must
/// be short (resume a continuation, set a flag). A timer whose work finished first is
/// cancelled, so the heap holds only timers that may still fire.
public final class TimerThread: Sendable {
    public static let shared = TimerThread(name: "cull.timers")

    /// A scheduled callback, for `cancel`.
    public struct Token: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private let timers: LockedTimers

    public init(name: String) {
        timers = LockedTimers()
        let thread = Thread { [timers] in timers.serve() }
        thread.name = name
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// Calls `action` on the timer thread once `delay` has passed.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        Token(id: timers.insert(deadline: .now + delay, action: action))
    }

    /// Cancels a callback that has not run yet; false if it already ran or was cancelled.
    @discardableResult
    public func cancel(_ token: Token) -> Bool { timers.remove(id: token.id) }

    /// Callbacks waiting to run.
    public var pending: Int { timers.count }
}

/// The heap and the condition the timer thread sleeps on. The thread must wait with a
/// timeout, which a Mutex cannot do; NSCondition is the lock here, held only for heap updates
/// (never while a callback runs) and only on this type's own methods.
private final class LockedTimers: @unchecked Sendable {
    // @unchecked: `heap` is read and written only between condition.lock() and unlock().
    private let condition = NSCondition()
    private var heap = TimerHeap<@Sendable () -> Void>()

    func insert(deadline: ContinuousClock.Instant, action: @escaping @Sendable () -> Void) -> UInt64 {
        condition.lock()
        let id = heap.insert(deadline: deadline, action: action)
        condition.unlock()
        condition.signal()
        return id
    }

    func remove(id: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return heap.remove(id: id)
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return heap.count
    }

    /// The timer thread's loop: sleep until the earliest deadline (or a new timer), run what
    /// is due outside the lock.
    func serve() -> Never {
        while true {
            condition.lock()
            var due: [@Sendable () -> Void] = []
            while due.isEmpty {
                let now = ContinuousClock.now
                due = heap.popDue(now: now)
                if !due.isEmpty { break }
                if let next = heap.nextDeadline {
                    let wait = next - now
                    let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
                    _ = condition.wait(until: Date(timeIntervalSinceNow: max(0, seconds)))
                } else {
                    condition.wait()
                }
            }
            condition.unlock()
            for action in due { action() }
        }
    }
}
