import DequeModule
import Synchronization

/// Bounds how many tasks pass a section at once. Tasks beyond the bound wait in FIFO order,
/// suspended (never blocking a thread), and are admitted one by one as permits come back.
///
/// Rule 5 of DESIGN.md: limit concurrency where the resource is, not by queue width alone.
/// Each task brings its own execution; the limiter only decides when it may go.
public final class ConcurrencyLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var waiters: Deque<Waiter> = []
        var nextWaiterID: UInt64 = 0
        /// Waiters that have an id but are not queued yet: the cancellation handler can run
        /// before the continuation exists.
        var notYetQueued: Set<UInt64> = []
        var cancelledBeforeQueued: Set<UInt64> = []
    }

    public let limit: Int
    private let state: Mutex<State>

    public init(limit: Int) {
        precondition(limit > 0, "a limiter needs at least one permit")
        self.limit = limit
        self.state = Mutex(State(available: limit))
    }

    /// Permits currently held.
    public var inUse: Int { state.withLock { limit - $0.available } }

    /// Tasks waiting for a permit.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits (suspended, FIFO) for a permit. Throws `CancellationError` if the task is
    /// cancelled while waiting; the permit is then not taken.
    public func acquire() async throws {
        let id: UInt64? = state.withLock { state in
            if state.available > 0, state.waiters.isEmpty {
                state.available -= 1
                return nil
            }
            let id = state.nextWaiterID
            state.nextWaiterID += 1
            state.notYetQueued.insert(id)
            return id
        }
        guard let id else { return }

        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Admission { case cancelled, admitted, queued }
                let admission = state.withLock { state -> Admission in
                    state.notYetQueued.remove(id)
                    if state.cancelledBeforeQueued.remove(id) != nil { return .cancelled }
                    // A permit may have come back between the first look and now (its release
                    // found no waiter to hand it to): take it, or this waiter could wait forever.
                    if state.available > 0, state.waiters.isEmpty {
                        state.available -= 1
                        return .admitted
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch admission {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .admitted: continuation.resume()
                case .queued: break
                }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                // Not queued yet: the continuation closure will see this and throw.
                // Otherwise already admitted: it holds a permit and releases it as usual.
                if state.notYetQueued.contains(id) {
                    state.cancelledBeforeQueued.insert(id)
                }
                return nil
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, admitting the longest-waiting task if there is one.
    public func release() {
        let next = state.withLock { state -> Waiter? in
            if let first = state.waiters.popFirst() { return first }
            state.available += 1
            precondition(state.available <= limit, "ConcurrencyLimiter released more permits than it gave")
            return nil
        }
        next?.continuation.resume()
    }

    /// Runs `body` holding a permit.
    public func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }
}
