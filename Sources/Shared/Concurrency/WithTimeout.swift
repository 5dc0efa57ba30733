/// Runs `operation` and returns its result, or nil if `timeout` passes first; the operation is
/// then cancelled (it must end promptly on cancellation, as `MessageInbox.next()` does).
/// The one "await this, but not forever" of the clients and tests (rule 3).
public func withTimeout<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async -> T?) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
