import DequeModule

/// What workers that went away still owed: their deadlines missed in a row and their
/// quarantine, kept for when they say HELLO again.
///
/// A worker already known keeps its debts when it says HELLO again (`Scheduler.register`); one
/// that said DISCONNECT, or was dropped as silent, was forgotten with them, so leaving and coming
/// back washed a quarantine away: a hostile worker that sits on jobs could DISCONNECT and HELLO
/// to take a fresh share, and a crowd dropped as silent under load came back unmarked. Only
/// workers that owe something are kept, and at most `capacity` of them, forgotten oldest first:
/// a coordinator that meets a stream of new worker ids holds no more for it.
struct DepartedWorkers: Sendable {
    struct Debt: Sendable, Equatable {
        var missedDeadlines: Int
        var quarantinedUntil: ContinuousClock.Instant?
    }

    let capacity: Int
    private var debts: [String: Debt] = [:]
    private var order: Deque<String> = []

    init(capacity: Int = 4096) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    var count: Int { debts.count }

    /// Keeps what `worker` owes as it goes away; nothing for a worker in good standing.
    mutating func remember(_ worker: Scheduler.Worker) {
        guard worker.missedDeadlines > 0 || worker.quarantinedUntil != nil else { return }
        if debts.updateValue(Debt(missedDeadlines: worker.missedDeadlines, quarantinedUntil: worker.quarantinedUntil),
                             forKey: worker.id) == nil {
            order.append(worker.id)
        }
        while order.count > capacity, let oldest = order.popFirst() {
            debts[oldest] = nil
        }
    }

    /// What `workerID` owed when it went away, if anything; forgotten here once asked (it is
    /// the worker's own record again).
    mutating func take(_ workerID: String) -> Debt? {
        guard let debt = debts.removeValue(forKey: workerID) else { return nil }
        if let index = order.firstIndex(of: workerID) { order.remove(at: index) }
        return debt
    }
}
