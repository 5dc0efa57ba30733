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
