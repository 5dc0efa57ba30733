/// The pending timers of a `TimerThread`: a binary min-heap by deadline (then by order of
/// scheduling), with each entry's position tracked so a cancelled timer is removed at once
/// instead of lingering, with what its closure holds, until its deadline.
struct TimerHeap<Action> {
    private struct Entry {
        var deadline: ContinuousClock.Instant
        var id: UInt64
        var action: Action
    }

    private var heap: [Entry] = []
    private var positions: [UInt64: Int] = [:]
    private var lastID: UInt64 = 0

    var count: Int { heap.count }
    var nextDeadline: ContinuousClock.Instant? { heap.first?.deadline }

    /// Adds a timer; returns its id for `remove`.
    mutating func insert(deadline: ContinuousClock.Instant, action: Action) -> UInt64 {
        lastID += 1
        heap.append(Entry(deadline: deadline, id: lastID, action: action))
        positions[lastID] = heap.count - 1
        siftUp(heap.count - 1)
        return lastID
    }

    /// Removes a timer that has not fired; false if it already fired or was removed.
    @discardableResult
    mutating func remove(id: UInt64) -> Bool {
        guard let index = positions[id] else { return false }
        removeEntry(at: index)
        return true
    }

    /// Removes and returns the actions of every timer due at `now`, earliest first.
    mutating func popDue(now: ContinuousClock.Instant) -> [Action] {
        var due: [Action] = []
        while let first = heap.first, first.deadline <= now {
            due.append(first.action)
            removeEntry(at: 0)
        }
        return due
    }

    private mutating func removeEntry(at index: Int) {
        positions[heap[index].id] = nil
        let last = heap.count - 1
        if index != last {
            heap.swapAt(index, last)
            positions[heap[index].id] = index
        }
        heap.removeLast()
        if index < heap.count {
            siftDown(index)
            siftUp(index)
        }
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].deadline < heap[b].deadline || (heap[a].deadline == heap[b].deadline && heap[a].id < heap[b].id)
    }

    private mutating func swapEntries(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        positions[heap[a].id] = a
        positions[heap[b].id] = b
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { return }
            swapEntries(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, less(left, smallest) { smallest = left }
            if right < heap.count, less(right, smallest) { smallest = right }
            if smallest == parent { return }
            swapEntries(parent, smallest)
            parent = smallest
        }
    }
}
