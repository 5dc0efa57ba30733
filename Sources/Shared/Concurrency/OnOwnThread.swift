import Foundation

/// Runs a blocking call (creating a ZeroMQ context, binding, `zmq_ctx_term`) on a new thread of
/// its own and resumes with its result, exactly once: the cooperative pool only awaits (rule 1).
/// For rare, one-off calls; steady blocking work belongs on a `BlockingQueue`.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
