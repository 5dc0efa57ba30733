import Synchronization

/// An atomic counter that escaping closures can share (an `Atomic` itself cannot be captured).
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)

    var current: Int { value.load(ordering: .acquiring) }
    func increment() { value.add(1, ordering: .acquiringAndReleasing) }
    func decrement() { value.subtract(1, ordering: .acquiringAndReleasing) }
}

/// A one-way stop signal that escaping closures can share: a thread asks `isSet` between
/// pieces of work, another sets it.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
