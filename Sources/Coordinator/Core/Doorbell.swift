/// Wakes one consumer loop: rings coalesce, so a burst of rings costs one wake-up, and the
/// buffer holds at most one (rule 5).
struct Doorbell: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func ring() { continuation.yield(()) }

    func close() { continuation.finish() }

    /// Suspends until the bell rings; false once closed.
    var rings: AsyncStream<Void> { stream }
}
