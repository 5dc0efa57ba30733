@testable import Coordinator
import Shared
import Testing

@Suite("Scheduler credits")
struct SchedulerTests {
    func spec(_ id: Int64) -> JobSpec {
        JobSpec(jobID: id, scanID: 1, generation: 1, photos: [.with { $0.photoID = id; $0.path = "/\(id)" }], dispatches: 0)
    }

    @Test("never more jobs in flight at a worker than the credit it offered")
    func credit() {
        let scheduler = Scheduler()
        _ = scheduler.register(workerID: "a", hello: .with { $0.workerID = "a"; $0.capacity = 2 }, routingID: Array("a".utf8))
        _ = scheduler.register(workerID: "b", hello: .with { $0.workerID = "b"; $0.capacity = 1 }, routingID: Array("b".utf8))
        scheduler.enqueue((1...10).map(spec))
        let first = scheduler.assign(limit: 100)
        #expect(first.count == 3)
        #expect(first.filter { $0.workerID == "a" }.count == 2)
        #expect(scheduler.assign(limit: 100).isEmpty, "assigned but unrecorded jobs use credit too")
        for (index, assignment) in first.enumerated() {
            #expect(scheduler.dispatched(jobID: assignment.spec.jobID, attempt: Int64(index + 1), deadline: .now + .seconds(60)) != nil)
        }
        #expect(scheduler.assign(limit: 100).isEmpty)
        // A result for an old attempt frees nothing; the right one frees one credit.
        let held = first[0]
        scheduler.resultArrived(jobID: held.spec.jobID, attempt: 99, workerID: held.workerID, photos: 1)
        #expect(scheduler.assign(limit: 100).isEmpty)
        scheduler.resultArrived(jobID: held.spec.jobID, attempt: 1, workerID: held.workerID, photos: 1)
        let next = scheduler.assign(limit: 100)
        #expect(next.count == 1 && next[0].workerID == held.workerID)
    }

    @Test("a worker that leaves hands back its jobs; a late one's jobs expire")
    func removalAndExpiry() {
        let scheduler = Scheduler()
        _ = scheduler.register(workerID: "a", hello: .with { $0.workerID = "a"; $0.capacity = 4 }, routingID: Array("a".utf8))
        scheduler.enqueue([spec(1), spec(2)])
        let assignments = scheduler.assign(limit: 10)
        _ = scheduler.dispatched(jobID: assignments[0].spec.jobID, attempt: 1, deadline: .now - .seconds(1))
        _ = scheduler.dispatched(jobID: assignments[1].spec.jobID, attempt: 2, deadline: .now + .seconds(60))
        #expect(scheduler.expired().map(\.spec.jobID) == [assignments[0].spec.jobID])
        #expect(scheduler.remove(workerID: "a") == [assignments[1].spec.jobID])
        #expect(scheduler.inFlightCount == 0)
    }
}
