import DequeModule
import Synchronization

/// A bounded single-consumer mailbox from a socket thread to async code.
///
/// The producer (a socket thread) checks `hasRoom` before it reads from its socket, so when
/// the consumer falls behind, messages wait in ZeroMQ's own bounded queues and the high-water
/// mark pushes back on the peer: nothing grows without bound (rule 5). The consumer suspends
/// (never blocks) while the inbox is empty.
public final class MessageInbox<Element: Sendable>: AsyncSequence, Sendable {
    private struct State {
        var buffer: Deque<Element> = []
        var waiter: CheckedContinuation<Element?, Never>?
        var finished = false
    }

    public let capacity: Int
    private let state = Mutex(State())
    /// Called after the consumer takes from a full inbox, so the producer can read again.
    private let onSpaceAvailable: @Sendable () -> Void

    public init(capacity: Int, onSpaceAvailable: @escaping @Sendable () -> Void = {}) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.onSpaceAvailable = onSpaceAvailable
    }

    public var hasRoom: Bool { state.withLock { $0.buffer.count < capacity } }

    /// Producer side. Returns false (and drops the element) when full or finished; a producer
    /// that checked `hasRoom` first never sees that.
    @discardableResult
    public func push(_ element: Element) -> Bool {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>?? in
            guard !state.finished else { return .none }
            if let waiter = state.waiter {
                state.waiter = nil
                return .some(waiter)
            }
            guard state.buffer.count < capacity else { return .none }
            state.buffer.append(element)
            return .some(nil)
        }
        switch waiter {
        case .none: return false
        case .some(let waiter?): waiter.resume(returning: element); return true
        case .some(nil): return true
        }
    }

    /// Ends the stream: the consumer gets what is buffered, then nil.
    public func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Consumer side: the next element, or nil once finished and drained or when the waiting
    /// task is cancelled.
    public func next() async -> Element? {
        let taken: Taken<Element> = state.withLock { state in
            if let first = state.buffer.popFirst() {
                return .element(first, wasFull: state.buffer.count + 1 >= capacity)
            }
            return state.finished ? .finished : .mustWait
        }
        switch taken {
        case .element(let element, let wasFull):
            if wasFull { onSpaceAvailable() }
            return element
        case .finished:
            return nil
        case .mustWait:
            break
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let immediate: Element?? = state.withLock { state in
                    if let first = state.buffer.popFirst() { return .some(first) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    precondition(state.waiter == nil, "MessageInbox has a single consumer")
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    private enum Taken<Value> { case element(Value, wasFull: Bool), finished, mustWait }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: MessageInbox<Element>
        public mutating func next() async -> Element? { await inbox.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: self) }
}
