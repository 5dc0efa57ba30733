@testable import Coordinator
import Shared
import Testing

@Suite("Scheduler credits", .timeLimit(.minutes(5)))
struct SchedulerTests {
    func spec(_ id: Int64, generation: Int64 = 1) -> JobSpec {
        JobSpec(jobID: id, scanID: 1, generation: generation, photos: [.with { $0.photoID = id; $0.path = "/\(id)" }], dispatches: 0)
    }

    func result(_ jobID: Int64, attempt: Int64, generation: Int64 = 1) -> Cull_V1_Result {
        .with { $0.jobID = jobID; $0.attempt = attempt; $0.generation = generation }
    }

    @Test("never more jobs in flight at a worker than the credit it offered")
    func credit() {
        let scheduler = Scheduler()
        _ = scheduler.register(workerID: "a", hello: .with { $0.workerID = "a"; $0.capacity = 2 }, routingID: Array("a".utf8))
        _ = scheduler.register(workerID: "b", hello: .with { $0.workerID = "b"; $0.capacity = 1 }, routingID: Array("b".utf8))
        scheduler.enqueue((1...10).map { spec($0) })
        let first = scheduler.assign(limit: 100)
        #expect(first.count == 3)
        #expect(first.filter { $0.workerID == "a" }.count == 2)
        #expect(scheduler.assign(limit: 100).isEmpty, "assigned but unrecorded jobs use credit too")
        for (index, assignment) in first.enumerated() {
            #expect(scheduler.dispatched(jobID: assignment.spec.jobID, attempt: Int64(index + 1), deadline: .now + .seconds(60)) != nil)
        }
        #expect(scheduler.assign(limit: 100).isEmpty)
        // A result for an old attempt, another generation or from another worker frees nothing;
        // the right one frees one credit.
        let held = first[0]
        #expect(scheduler.resultArrived(result(held.spec.jobID, attempt: 99), from: held.workerID) == .refused(.otherAttempt(current: 1)))
        #expect(scheduler.resultArrived(result(held.spec.jobID, attempt: 1, generation: 7), from: held.workerID) == .refused(.otherGeneration(current: 1)))
        #expect(scheduler.resultArrived(result(held.spec.jobID, attempt: 1), from: "b") == .refused(.otherWorker(current: held.workerID)))
        #expect(scheduler.assign(limit: 100).isEmpty)
        #expect(scheduler.resultArrived(result(held.spec.jobID, attempt: 1), from: held.workerID) == .accepted)
        #expect(scheduler.knownJobIDs().contains(held.spec.jobID), "a result being stored is still known to the reconciler")
        scheduler.stored(jobIDs: [held.spec.jobID])
        #expect(!scheduler.knownJobIDs().contains(held.spec.jobID))
        let next = scheduler.assign(limit: 100)
        #expect(next.count == 1 && next[0].workerID == held.workerID)
    }

    @Test("a worker that leaves hands back its jobs with their attempts; a late one's jobs expire")
    func removalAndExpiry() {
        let scheduler = Scheduler()
        _ = scheduler.register(workerID: "a", hello: .with { $0.workerID = "a"; $0.capacity = 4 }, routingID: Array("a".utf8))
        scheduler.enqueue([spec(1), spec(2)])
        let assignments = scheduler.assign(limit: 10)
        _ = scheduler.dispatched(jobID: assignments[0].spec.jobID, attempt: 1, deadline: .now - .seconds(1))
        _ = scheduler.dispatched(jobID: assignments[1].spec.jobID, attempt: 2, deadline: .now + .seconds(60))
        #expect(scheduler.expired().map(\.spec.jobID) == [assignments[0].spec.jobID])
        let returned = scheduler.remove(workerID: "a")
        #expect(returned.map(\.jobID) == [assignments[1].spec.jobID] && returned.map(\.attempt) == [2])
        #expect(scheduler.inFlightCount == 0)
    }

    /// Registers two workers of `capacity` and returns a helper that queues `count` jobs,
    /// assigns and records them with `deadline`, and says which worker got which.
    func twoWorkers(capacity: UInt32, clock: CoordinatorClock) -> (Scheduler, (Int, Duration) -> [String: [Int64]], () -> [Int64: Int64]) {
        let scheduler = Scheduler(clock: clock)
        for id in ["fair", "hog"] {
            _ = scheduler.register(workerID: id, hello: .with { $0.workerID = id; $0.capacity = capacity }, routingID: Array(id.utf8))
        }
        final class Counter {
            var next: Int64 = 1, attempt: Int64 = 1
            var attemptOf: [Int64: Int64] = [:]
        }
        let counter = Counter()
        let dispatch = { (count: Int, deadline: Duration) -> [String: [Int64]] in
            scheduler.enqueue((0..<count).map { offset in self.spec(counter.next + Int64(offset)) })
            counter.next += Int64(count)
            var got: [String: [Int64]] = [:]
            for assignment in scheduler.assign(limit: 100) {
                _ = scheduler.dispatched(jobID: assignment.spec.jobID, attempt: counter.attempt, deadline: clock.now + deadline)
                counter.attemptOf[assignment.spec.jobID] = counter.attempt
                counter.attempt += 1
                got[assignment.workerID, default: []].append(assignment.spec.jobID)
            }
            return got
        }
        return (scheduler, dispatch, { counter.attemptOf })
    }

    @Test("a worker whose jobs miss their deadline gets no work for 10 s, doubling with each miss in a row, then less credit; one answer earns it back")
    func quarantine() {
        let clock = CoordinatorClock()
        let (scheduler, dispatch, attempts) = twoWorkers(capacity: 2, clock: clock)
        let first = dispatch(4, .seconds(1))
        #expect(first["hog"]?.count == 2 && first["fair"]?.count == 2)
        // The fair worker answers; the hog sits on its jobs past their deadline.
        for job in first["fair", default: []] {
            #expect(scheduler.resultArrived(result(job, attempt: attempts()[job]!), from: "fair") == .accepted)
        }
        clock.advance(by: .seconds(2))
        #expect(scheduler.expired().count == 2)
        #expect(scheduler.worker("hog")?.missedDeadlines == 2)
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 0, "quarantined")
        let during = dispatch(2, .seconds(60))
        #expect(during["hog"] == nil && during["fair"]?.count == 2, "all work goes to the worker that answers")
        // Two misses in a row: 20 s without work, then its credit halved twice (at least one job).
        #expect(Scheduler.quarantine(afterMissing: 2) == .seconds(20))
        clock.advance(by: .seconds(21))
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 1)
        let after = dispatch(2, .seconds(60))
        #expect(after["hog"]?.count == 1, "one job on probation")
        let probation = after["hog"]![0]
        #expect(scheduler.resultArrived(result(probation, attempt: attempts()[probation]!), from: "hog") == .accepted)
        #expect(scheduler.worker("hog")?.missedDeadlines == 0)
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 2, "its credit back")
        #expect(Scheduler.quarantine(afterMissing: 1) == .seconds(10) && Scheduler.quarantine(afterMissing: 40) == .seconds(600))
    }

    @Test("a worker that leaves or is dropped as silent and says HELLO again keeps its missed deadlines and quarantine; one in good standing comes back fresh")
    func departedWorkersKeepTheirDebts() {
        let clock = CoordinatorClock()
        let (scheduler, dispatch, attempts) = twoWorkers(capacity: 2, clock: clock)
        let first = dispatch(4, .seconds(1))
        for job in first["fair", default: []] {
            #expect(scheduler.resultArrived(result(job, attempt: attempts()[job]!), from: "fair") == .accepted)
        }
        clock.advance(by: .seconds(2))
        #expect(scheduler.expired().count == 2)
        #expect(scheduler.worker("hog")?.missedDeadlines == 2 && scheduler.worker("hog")?.credit(at: clock.now) == 0)
        func hello(_ id: String) {
            _ = scheduler.register(workerID: id, hello: .with { $0.workerID = id; $0.capacity = 2 }, routingID: Array(id.utf8))
        }
        // DISCONNECT (or dropped as silent: the same `remove`), then HELLO: still quarantined.
        _ = scheduler.remove(workerID: "hog")
        #expect(scheduler.worker("hog") == nil)
        hello("hog")
        #expect(scheduler.worker("hog")?.missedDeadlines == 2 && scheduler.worker("hog")?.credit(at: clock.now) == 0, "leaving washed nothing away")
        #expect(dispatch(2, .seconds(60))["hog"] == nil, "no work while quarantined")
        // Leaving again keeps it again.
        _ = scheduler.remove(workerID: "hog")
        hello("hog")
        #expect(scheduler.worker("hog")?.missedDeadlines == 2)
        // A worker in good standing leaves nothing behind and comes back with its starting credit.
        _ = scheduler.remove(workerID: "fair")
        hello("fair")
        #expect(scheduler.worker("fair")?.missedDeadlines == 0 && scheduler.worker("fair")?.credit(at: clock.now) == Scheduler.startingCredit)
    }

    @Test("departed workers' debts are bounded: past the capacity the oldest are forgotten")
    func departedWorkersBounded() {
        var departed = DepartedWorkers(capacity: 3)
        func owing(_ id: String) -> Scheduler.Worker {
            var worker = Scheduler.Worker(id: id, routingID: [], hello: .init(), lastHeard: .now, joined: .now)
            worker.missedDeadlines = 1
            return worker
        }
        for id in ["a", "b", "c", "d"] { departed.remember(owing(id)) }
        departed.remember(Scheduler.Worker(id: "clean", routingID: [], hello: .init(), lastHeard: .now, joined: .now))
        #expect(departed.count == 3, "at most the capacity, and nothing for a worker that owes nothing")
        #expect(departed.take("a") == nil, "the oldest forgotten")
        #expect(departed.take("b")?.missedDeadlines == 1 && departed.take("b") == nil)
        #expect(departed.take("clean") == nil)
    }

    @Test("credit is earned: a worker announcing a capacity of 1,000 holds 2 jobs until it answers, then 4, 8, … up to its capacity")
    func earnedCredit() {
        let clock = CoordinatorClock()
        let (scheduler, dispatch, attempts) = twoWorkers(capacity: 1_000, clock: clock)
        let first = dispatch(100, .seconds(60))
        #expect(first["fair"]?.count == 2 && first["hog"]?.count == 2, "two each, the rest stays queued")
        #expect(scheduler.queuedCount == 96)
        // The fair worker answers one job: it may now hold 4 (one still out, three more).
        let answered = first["fair"]![0]
        #expect(scheduler.resultArrived(result(answered, attempt: attempts()[answered]!), from: "fair") == .accepted)
        let next = dispatch(0, .seconds(60))
        #expect(next["fair"]?.count == 3 && next["hog"] == nil)
        #expect(scheduler.worker("fair")?.credit(at: clock.now) == 4 && scheduler.worker("hog")?.credit(at: clock.now) == 2)
    }

    @Test("a worker that has answered nothing yet holds a job only as long as answering workers take (at least 5 s): then it is taken back, the dispatch not counted")
    func probation() {
        let clock = CoordinatorClock()
        let (scheduler, dispatch, attempts) = twoWorkers(capacity: 2, clock: clock)
        let first = dispatch(5, .seconds(300))
        #expect(first["hog"]?.count == 2 && first["fair"]?.count == 2 && scheduler.queuedCount == 1, "one job waits: not the scan's tail")
        clock.advance(by: .seconds(6))
        #expect(scheduler.expired().isEmpty, "before any worker has answered, the job deadline alone applies")
        for job in first["fair", default: []] {
            #expect(scheduler.resultArrived(result(job, attempt: attempts()[job]!), from: "fair") == .accepted)
        }
        // Answers took 6 s: the hog on probation may hold its jobs 8 × 6 s from their dispatch.
        clock.advance(by: .seconds(40))
        #expect(scheduler.expired().isEmpty)
        clock.advance(by: .seconds(3))
        let taken = scheduler.expired()
        #expect(Set(taken.map(\.spec.jobID)) == Set(first["hog"]!))
        #expect(taken.allSatisfy { $0.takenOnProbation && $0.takeBackRequest.refundsDispatch })
        #expect(scheduler.worker("hog")?.missedDeadlines == 2 && scheduler.worker("hog")?.credit(at: clock.now) == 0, "quarantined")
        // Saying HELLO again does not wash the quarantine away.
        _ = scheduler.register(workerID: "hog", hello: .with { $0.workerID = "hog"; $0.capacity = 2 }, routingID: Array("hog".utf8))
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 0 && scheduler.worker("hog")?.missedDeadlines == 2)
        // A worker that has answered is judged by the job deadline only.
        let later = dispatch(1, .seconds(300))
        #expect(later["fair"]?.count == 2)
        clock.advance(by: .seconds(200))
        #expect(scheduler.expired().isEmpty)
        // The hog was only slow: its late answer is refused (the fence holds) but proves it.
        let late = taken[0].spec.jobID
        #expect(scheduler.resultArrived(result(late, attempt: attempts()[late]!), from: "fair") == .refused(nil), "not from its worker: no proof")
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 1, "out of quarantine, its credit halved twice (at least one)")
        #expect(scheduler.resultArrived(result(late, attempt: attempts()[late]!), from: "hog") == .refused(nil))
        #expect(scheduler.worker("hog")?.missedDeadlines == 0 && scheduler.worker("hog")?.credit(at: clock.now) == 2)
    }

    @Test("at a scan's tail (nothing queued, an answering worker with room) a worker on probation holds a job only twice the typical turnaround")
    func probationAtTheTail() {
        let clock = CoordinatorClock()
        let (scheduler, dispatch, attempts) = twoWorkers(capacity: 2, clock: clock)
        let first = dispatch(4, .seconds(300))
        clock.advance(by: .seconds(1))
        for job in first["fair", default: []] {
            #expect(scheduler.resultArrived(result(job, attempt: attempts()[job]!), from: "fair") == .accepted)
        }
        clock.advance(by: .milliseconds(900))
        #expect(scheduler.expired().isEmpty, "1.9 s: within twice the 1 s turnaround")
        clock.advance(by: .milliseconds(200))
        let taken = scheduler.expired()
        #expect(Set(taken.map(\.spec.jobID)) == Set(first["hog"]!) && taken.allSatisfy(\.takenOnProbation))
    }

    @Test("the probation limit: 8 × the 90th percentile of recent turnarounds, at least the floor, none at the job deadline")
    func probationLimit() {
        var probation = Probation(floor: .seconds(5), factor: 8, ceiling: .seconds(300))
        #expect(probation.limit == nil, "nothing answered yet")
        for _ in 0..<9 { probation.recordTurnaround(.milliseconds(100)) }
        probation.recordTurnaround(.seconds(2))
        #expect(probation.limit == .seconds(5), "the floor; one slow answer in ten is above the 90th percentile")
        for _ in 0..<Probation.historyCount { probation.recordTurnaround(.seconds(2)) }
        #expect(probation.limit == .seconds(16), "the old answers are forgotten")
        #expect(probation.tailLimit == .seconds(4))
        for _ in 0..<Probation.historyCount { probation.recordTurnaround(.seconds(40)) }
        #expect(probation.limit == nil, "320 s is past the job deadline: the ordinary deadline, which counts, applies")
    }

    @Test("a cancelled scan's jobs keep their credit until the worker answers them")
    func cancelKeepsCreditUntilAnswered() {
        let scheduler = Scheduler()
        _ = scheduler.register(workerID: "a", hello: .with { $0.workerID = "a"; $0.capacity = 1 }, routingID: Array("a".utf8))
        scheduler.enqueue([spec(1), spec(2)])
        let first = scheduler.assign(limit: 10)
        _ = scheduler.dispatched(jobID: first[0].spec.jobID, attempt: 5, deadline: .now + .seconds(60))
        let told = scheduler.dropJobs(ofScan: 1)
        #expect(told["a"]?.map(\.attempt) == [5])
        #expect(scheduler.queuedCount == 0, "queued jobs of the scan are dropped")
        scheduler.enqueue([JobSpec(jobID: 9, scanID: 2, generation: 1, photos: [], dispatches: 0)])
        #expect(scheduler.assign(limit: 10).isEmpty, "the worker is still busy with the cancelled job")
        #expect(scheduler.remove(workerID: "zzz").isEmpty)
        #expect(scheduler.resultArrived(result(first[0].spec.jobID, attempt: 5), from: "a") == .cancelledJob)
        #expect(scheduler.assign(limit: 10).map(\.spec.jobID) == [9])
    }
}
