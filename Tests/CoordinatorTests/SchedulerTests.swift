@testable import Coordinator
import Shared
import Testing

@Suite("Scheduler credits", .timeLimit(.minutes(2)))
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

    @Test("a worker whose jobs miss their deadline gets no work for 10 s, then half its credit, doubling the wait each time; one answer earns it all back")
    func quarantine() {
        let clock = CoordinatorClock()
        let scheduler = Scheduler(clock: clock)
        _ = scheduler.register(workerID: "hog", hello: .with { $0.workerID = "hog"; $0.capacity = 4 }, routingID: Array("hog".utf8))
        _ = scheduler.register(workerID: "fair", hello: .with { $0.workerID = "fair"; $0.capacity = 4 }, routingID: Array("fair".utf8))
        var next: Int64 = 1, attempt: Int64 = 1
        var attemptOf: [Int64: Int64] = [:]
        /// Queues `count` jobs, assigns and records them; returns how many each worker got.
        func dispatch(_ count: Int, deadline: Duration = .seconds(60)) -> [String: [Int64]] {
            scheduler.enqueue((0..<count).map { offset in spec(next + Int64(offset)) })
            next += Int64(count)
            var got: [String: [Int64]] = [:]
            for assignment in scheduler.assign(limit: 100) {
                _ = scheduler.dispatched(jobID: assignment.spec.jobID, attempt: attempt, deadline: clock.now + deadline)
                attemptOf[assignment.spec.jobID] = attempt
                attempt += 1
                got[assignment.workerID, default: []].append(assignment.spec.jobID)
            }
            return got
        }
        let first = dispatch(8, deadline: .seconds(1))
        #expect(first["hog"]?.count == 4 && first["fair"]?.count == 4)
        // The fair worker answers; the hog sits on its jobs past their deadline.
        for job in first["fair", default: []] {
            #expect(scheduler.resultArrived(result(job, attempt: attemptOf[job]!), from: "fair") == .accepted)
        }
        clock.advance(by: .seconds(2))
        #expect(scheduler.expired().count == 4)
        #expect(scheduler.worker("hog")?.missedDeadlines == 4)
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 0, "quarantined")
        let during = dispatch(4)
        #expect(during["hog"] == nil && during["fair"]?.count == 4, "all work goes to the worker that answers")
        // Four misses in a row: 80 s without work, then 4 >> 4 → at least one job.
        #expect(Scheduler.quarantine(afterMissing: 4) == .seconds(80))
        clock.advance(by: .seconds(81))
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 1)
        let after = dispatch(2)
        #expect(after["hog"]?.count == 1, "one job on probation")
        // It answers: full credit again.
        let probation = after["hog"]![0]
        #expect(scheduler.resultArrived(result(probation, attempt: attemptOf[probation]!), from: "hog") == .accepted)
        #expect(scheduler.worker("hog")?.missedDeadlines == 0)
        #expect(scheduler.worker("hog")?.credit(at: clock.now) == 4)
        #expect(Scheduler.quarantine(afterMissing: 1) == .seconds(10) && Scheduler.quarantine(afterMissing: 40) == .seconds(600))
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
