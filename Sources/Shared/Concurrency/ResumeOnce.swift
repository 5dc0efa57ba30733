import Synchronization

/// Counts completions that arrived after a `ResumeOnce` had already resumed its continuation.
///
/// A non-zero figure is normal (a timeout racing a late reply); a figure that keeps climbing
/// points at a source that completes far too often.
public enum ResumeOnceStatistics {
    public static let droppedCompletions = Atomic<Int>(0)
}

/// Guards a continuation that more than one party may try to complete: a result and a timeout,
/// a reply and a peer's death, a callback that fires twice. The first completion wins; every
/// later one is dropped and counted in `ResumeOnceStatistics.droppedCompletions`.
///
/// This is rule 2 of DESIGN.md: every continuation resumes exactly once.
public final class ResumeOnce<Success: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Success, any Error>?>

    public init(_ continuation: CheckedContinuation<Success, any Error>) {
        self.continuation = Mutex(continuation)
    }

    /// Whether a completion has already won.
    public var isResumed: Bool {
        continuation.withLock { $0 == nil }
    }

    /// Completes with `result` if nothing has yet; returns whether this call won.
    @discardableResult
    public func resume(with result: Result<Success, any Error>) -> Bool {
        let taken = continuation.withLock { slot -> CheckedContinuation<Success, any Error>? in
            defer { slot = nil }
            return slot
        }
        guard let taken else {
            ResumeOnceStatistics.droppedCompletions.add(1, ordering: .relaxed)
            return false
        }
        // Resumed outside the lock: resuming may run arbitrary code synchronously.
        taken.resume(with: result)
        return true
    }

    @discardableResult
    public func resume(returning value: Success) -> Bool {
        resume(with: .success(value))
    }

    @discardableResult
    public func resume(throwing error: any Error) -> Bool {
        resume(with: .failure(error))
    }
}
