import DequeModule
import Foundation

/// Dedicated threads that run submitted closures, FIFO. A thread is started whenever work is
/// waiting and no thread is idle, up to `maxThreads`; threads stay for the process's life.
/// Blocking here is the point: these threads exist so that blocking never happens elsewhere.
final class ThreadPool: Sendable {
    private struct State {
        var items: Deque<@Sendable () -> Void> = []
        var idle = 0
        var threads = 0
    }

    let label: String
    let maxThreads: Int
    // NSCondition: threads of this pool wait on it (never a cooperative thread); submitters
    // hold its lock only to append.
    private let condition = NSCondition()
    private let state: LockedState<State>

    init(label: String, maxThreads: Int) {
        self.label = label
        self.maxThreads = maxThreads
        self.state = LockedState(State(), condition: condition)
    }

    func submit(_ item: @escaping @Sendable () -> Void) {
        let startThread = state.withLock { state -> Bool in
            state.items.append(item)
            // Idle threads that were signalled may not have taken their item yet: start a
            // thread whenever items outnumber them, or an item could wait behind a stuck one.
            if state.items.count > state.idle && state.threads < maxThreads {
                state.threads += 1
                return true
            }
            return false
        }
        condition.signal()
        if startThread {
            let thread = Thread { [self] in self.serve() }
            thread.name = label
            thread.start()
        }
    }

    private func serve() {
        while true {
            condition.lock()
            var item = state.unsafeState.items.popFirst()
            while item == nil {
                state.unsafeState.idle += 1
                condition.wait()
                state.unsafeState.idle -= 1
                item = state.unsafeState.items.popFirst()
            }
            condition.unlock()
            item!()
        }
    }
}

/// State guarded by an NSCondition's lock (so threads can also wait on the condition).
private final class LockedState<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written with `condition` locked, either through
    // `withLock` or by `ThreadPool.serve`, which holds the lock around `unsafeState`.
    private var value: Value
    private let condition: NSCondition

    init(_ value: Value, condition: NSCondition) {
        self.value = value
        self.condition = condition
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&value)
    }

    /// Only with the condition's lock held.
    var unsafeState: Value {
        get { value }
        _modify { yield &value }
    }
}
