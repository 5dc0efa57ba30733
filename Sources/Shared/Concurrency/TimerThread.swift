import Foundation
import Synchronization

/// Runs callbacks at deadlines from one dedicated thread.
///
/// Hard timeouts (rule 3) must fire even when everything else is stuck. On Linux, Swift
/// concurrency's cooperative pool and libdispatch's global queues share threads, so a timer
/// scheduled with `asyncAfter` can be delayed for as long as that pool is blocked: exactly when
/// it is needed. This thread belongs to no pool; it only sleeps and calls back. Callbacks must
/// be short (resume a continuation, set a flag).
public final class TimerThread: Sendable {
    public static let shared = TimerThread(name: "cull.timers")

    private struct Entry {
        var deadline: ContinuousClock.Instant
        var sequence: UInt64
        var action: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private let entries: LockedEntries

    public init(name: String) {
        entries = LockedEntries(condition: condition)
        let thread = Thread { [entries, condition] in
            TimerThread.serve(entries, condition)
        }
        thread.name = name
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// Calls `action` on the timer thread once `delay` has passed.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        condition.lock()
        entries.insert(deadline: .now + delay, action: action)
        condition.unlock()
        condition.signal()
    }

    private static func serve(_ entries: LockedEntries, _ condition: NSCondition) {
        while true {
            condition.lock()
            var due: [@Sendable () -> Void] = []
            while due.isEmpty {
                let now = ContinuousClock.now
                due = entries.popDue(now: now)
                if !due.isEmpty { break }
                if let next = entries.nextDeadline {
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

/// The pending timers, touched only with the condition's lock held.
private final class LockedEntries: @unchecked Sendable {
    // @unchecked: every access happens between condition.lock() and condition.unlock(), in
    // `TimerThread.schedule` or `TimerThread.serve`.
    private var heap: [(deadline: ContinuousClock.Instant, sequence: UInt64, action: @Sendable () -> Void)] = []
    private var sequence: UInt64 = 0
    let condition: NSCondition

    init(condition: NSCondition) { self.condition = condition }

    func insert(deadline: ContinuousClock.Instant, action: @escaping @Sendable () -> Void) {
        sequence += 1
        heap.append((deadline, sequence, action))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    var nextDeadline: ContinuousClock.Instant? { heap.first?.deadline }

    func popDue(now: ContinuousClock.Instant) -> [@Sendable () -> Void] {
        var due: [@Sendable () -> Void] = []
        while let first = heap.first, first.deadline <= now {
            due.append(first.action)
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, less(left, smallest) { smallest = left }
                if right < heap.count, less(right, smallest) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return due
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].deadline < heap[b].deadline || (heap[a].deadline == heap[b].deadline && heap[a].sequence < heap[b].sequence)
    }
}
