import Shared

/// A worker as the scheduler knows it: what it holds, what it owes, and the credit it has earned.
extension Scheduler {
    struct Worker: Sendable {
        var id: String
        var routingID: [UInt8]
        var hello: Cull_V1_Hello
        /// With CURVE: the name of the key its connection authenticated with.
        var keyName: String?
        var lastHeard: ContinuousClock.Instant
        /// When it said HELLO: its photos per second are counted from here.
        var joined: ContinuousClock.Instant
        var load = Cull_V1_Heartbeat()
        var jobs: Set<Int64> = []
        var photosDone: UInt64 = 0
        /// Jobs of its in a row that missed their deadline (an answer resets it), and until
        /// when it gets no new work for them.
        var missedDeadlines = 0
        var quarantinedUntil: ContinuousClock.Instant?
        /// Jobs it answered (capped): its credit grows with them.
        var answered = 0

        /// The jobs it may hold at `now`. Earned: a new worker starts at `startingCredit`, which
        /// doubles with each job it answers, up to the capacity it announced (so a worker that
        /// claims a huge capacity cannot take a whole scan before it has answered anything).
        /// None while quarantined, then halved for each deadline missed in a row (at least one).
        func credit(at now: ContinuousClock.Instant) -> Int {
            if let until = quarantinedUntil, now < until { return 0 }
            let earned = min(Int(hello.capacity), Scheduler.startingCredit << min(answered, 20))
            return max(1, earned >> min(missedDeadlines, 30))
        }

        func free(at now: ContinuousClock.Instant) -> Int { credit(at: now) - jobs.count }
    }

    /// The jobs a worker that has answered nothing yet may hold.
    static let startingCredit = 2
}
