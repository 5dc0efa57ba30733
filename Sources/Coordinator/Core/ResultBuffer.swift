import DequeModule
import Shared
import Synchronization

/// Accepted RESULTs on their way to SQLite, bounded (rule 5).
///
/// Only results the scheduler accepted (the dispatch in flight) get here; forged, late and
/// stale ones are dropped before. A worker's credit comes back when its result is accepted,
/// so while SQLite keeps up the buffer holds about one batch; if SQLite falls behind it fills
/// to `capacity`, and then `append` waits: the work channel stops reading, ZeroMQ's high-water
/// marks push back on the workers, and nothing grows.
final class ResultBuffer: Sendable {
    let capacity: Int
    private let slots: ConcurrencyLimiter
    private let buffer = Mutex<Deque<ReceivedResult>>([])
    private let bell = Doorbell()

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        slots = ConcurrencyLimiter(limit: capacity)
    }

    /// Adds a result, waiting while the buffer is full. Throws only if the waiting task is
    /// cancelled (the result is then not buffered; its job comes back through its deadline).
    func append(_ result: ReceivedResult) async throws {
        try await slots.acquire()
        buffer.withLock { $0.append(result) }
        bell.ring()
    }

    var count: Int { buffer.withLock { $0.count } }

    /// Everything buffered now, making room for as many.
    func takeAll() -> [ReceivedResult] {
        let batch = buffer.withLock { buffer -> [ReceivedResult] in
            defer { buffer.removeAll(keepingCapacity: true) }
            return Array(buffer)
        }
        for _ in batch { slots.release() }
        return batch
    }

    /// Rings when results arrive; ends after `close()`.
    var arrivals: AsyncStream<Void> { bell.rings }

    /// No more results: the writer drains what is left and stops.
    func close() { bell.close() }
}
