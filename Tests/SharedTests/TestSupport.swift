import Synchronization

/// Shared counters for tests: Atomic and Mutex cannot be captured by escaping closures
/// directly (they are non-copyable), a final class holding them can.
final class Tally: Sendable {
    let current = Atomic<Int>(0)
    let peak = Atomic<Int>(0)

    func enter() {
        let now = current.add(1, ordering: .relaxed).newValue
        peak.max(now, ordering: .relaxed)
    }

    func leave() { current.subtract(1, ordering: .relaxed) }
}

final class Log<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}
