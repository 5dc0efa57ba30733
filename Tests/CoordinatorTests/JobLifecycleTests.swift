@testable import Coordinator
import Testing

/// Every transition of `JobLifecycle`, and every way the fence refuses one.
@Suite("Job lifecycle", .timeLimit(.minutes(5)))
struct JobLifecycleTests {
    func queued(photos: Int = 3, dispatches: Int = 0) -> JobLifecycle {
        JobLifecycle(jobID: 1, generation: 4, photoCount: photos, dispatches: dispatches)
    }

    func dispatched(attempt: Int64 = 10, worker: String = "w", photos: Int = 3, dispatches: Int = 0) throws -> JobLifecycle {
        var job = queued(photos: photos, dispatches: dispatches)
        try job.dispatch(attempt: attempt, to: worker)
        return job
    }

    @Test("queued → dispatched counts the dispatch and records attempt and worker")
    func dispatch() throws {
        let job = try dispatched()
        #expect(job.state == .dispatched && job.dispatches == 1)
        #expect(job.dispatch == .init(attempt: 10, workerID: "w", deadline: nil))
    }

    @Test("only a queued job can be dispatched")
    func dispatchRefused() throws {
        var job = try dispatched()
        #expect(throws: JobLifecycle.Refusal.wrongState(.dispatched)) { try job.dispatch(attempt: 11, to: "w") }
        for end in [JobState.done, .split, .failed, .abandoned] {
            var finished = JobLifecycle(jobID: 1, generation: 4, photoCount: 1, phase: Self.phase(end))
            #expect(throws: JobLifecycle.Refusal.wrongState(end)) { try finished.dispatch(attempt: 12, to: "w") }
        }
    }

    @Test("dispatched → done only for the same attempt, worker and generation")
    func complete() throws {
        var job = try dispatched()
        #expect(throws: JobLifecycle.Refusal.otherAttempt(current: 10)) { try job.complete(attempt: 9, workerID: "w", generation: 4) }
        #expect(throws: JobLifecycle.Refusal.otherWorker(current: "w")) { try job.complete(attempt: 10, workerID: "x", generation: 4) }
        #expect(throws: JobLifecycle.Refusal.otherGeneration(current: 4)) { try job.complete(attempt: 10, workerID: "w", generation: 3) }
        #expect(job.state == .dispatched, "refusals change nothing")
        try job.complete(attempt: 10, workerID: "w", generation: 4)
        #expect(job.state == .done)
        #expect(throws: JobLifecycle.Refusal.wrongState(.done)) { try job.complete(attempt: 10, workerID: "w", generation: 4) }
    }

    @Test("a queued job accepts no result")
    func resultForQueued() {
        var job = queued()
        #expect(throws: JobLifecycle.Refusal.wrongState(.queued)) { try job.complete(attempt: 1, workerID: "w", generation: 4) }
    }

    @Test("take back with dispatches left → queued, fenced by attempt")
    func requeue() throws {
        var job = try dispatched()
        #expect(throws: JobLifecycle.Refusal.otherAttempt(current: 10)) { _ = try job.takeBack(attempt: 7, maxDispatches: 3) }
        #expect(try job.takeBack(attempt: 10, maxDispatches: 3) == .requeue)
        #expect(job.state == .queued && job.dispatch == nil && job.dispatches == 1)
        #expect(throws: JobLifecycle.Refusal.wrongState(.queued)) { _ = try job.takeBack(attempt: 10, maxDispatches: 3) }
    }

    @Test("take back out of dispatches → split when several photos, failed when one")
    func splitOrFail() throws {
        var several = try dispatched(photos: 3, dispatches: 2)
        #expect(try several.takeBack(attempt: 10, maxDispatches: 3) == .split)
        #expect(several.state == .split)
        var lone = try dispatched(photos: 1, dispatches: 2)
        #expect(try lone.takeBack(attempt: 10, maxDispatches: 3) == .fail)
        #expect(lone.state == .failed)
    }

    @Test("a take back not counted (a worker on probation held it) gives the dispatch back: a lone photo on its last dispatch is queued, not failed")
    func uncountedTakeBack() throws {
        var lone = try dispatched(photos: 1, dispatches: 2)
        #expect(throws: JobLifecycle.Refusal.otherAttempt(current: 10)) { _ = try lone.takeBack(attempt: 7, maxDispatches: 3, counted: false) }
        #expect(try lone.takeBack(attempt: 10, maxDispatches: 3, counted: false) == .requeue)
        #expect(lone.state == .queued && lone.dispatches == 2)
    }

    @Test("abandon ends open jobs only")
    func abandon() throws {
        var open = queued()
        #expect(open.abandon() && open.state == .abandoned)
        var out = try dispatched()
        #expect(out.abandon() && out.state == .abandoned)
        #expect(throws: JobLifecycle.Refusal.wrongState(.abandoned)) { try out.complete(attempt: 10, workerID: "w", generation: 4) }
        var done = try dispatched()
        try done.complete(attempt: 10, workerID: "w", generation: 4)
        #expect(!done.abandon() && done.state == .done)
    }

    @Test("recover after a restart queues dispatched jobs and leaves the rest")
    func recover() throws {
        var out = try dispatched()
        out.recover()
        #expect(out.state == .queued && out.dispatches == 1)
        var done = try dispatched()
        try done.complete(attempt: 10, workerID: "w", generation: 4)
        done.recover()
        #expect(done.state == .done)
    }

    static func phase(_ state: JobState) -> JobLifecycle.Phase {
        switch state {
        case .queued: .queued
        case .dispatched: .dispatched(.init(attempt: 1, workerID: "w", deadline: nil))
        case .done: .done
        case .split: .split
        case .failed: .failed
        case .abandoned: .abandoned
        }
    }
}
