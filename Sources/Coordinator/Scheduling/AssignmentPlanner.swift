/// Decides, job by job, which worker gets the next queued job: the one with the most free
/// credit at `now` (ties by id, so tests are deterministic; a quarantined worker has none). A job that must run alone (suspected of
/// killing workers) goes only to an idle worker, which then gets nothing else until it is done.
struct AssignmentPlanner {
    enum Placement: Equatable {
        case worker(String)
        /// A job that runs alone found no idle worker: later jobs may pass it.
        case waitForIdleWorker
        /// No worker has credit: stop assigning.
        case noCredit
    }

    private var workers: [String: Scheduler.Worker]
    private let now: ContinuousClock.Instant
    private var pending: [String: Int] = [:]
    /// Workers running (or about to run) a job alone.
    private var reserved: Set<String> = []

    init(workers: [String: Scheduler.Worker], assigning: some Sequence<Scheduler.Assignment>, inFlight: some Sequence<Scheduler.InFlight>,
         now: ContinuousClock.Instant) {
        self.workers = workers
        self.now = now
        for assignment in assigning {
            pending[assignment.workerID, default: 0] += 1
            if assignment.spec.runsAlone { reserved.insert(assignment.workerID) }
        }
        for flight in inFlight where flight.spec.runsAlone { reserved.insert(flight.workerID) }
    }

    mutating func place(_ spec: JobSpec) -> Placement {
        var best: (id: String, free: Int)?
        for worker in workers.values where !reserved.contains(worker.id) {
            let queued = pending[worker.id, default: 0]
            if spec.runsAlone && (!worker.jobs.isEmpty || queued > 0) { continue }
            let free = worker.free(at: now) - queued
            guard free > 0 else { continue }
            if let current = best, current.free > free || (current.free == free && current.id < worker.id) { continue }
            best = (worker.id, free)
        }
        guard let workerID = best?.id else { return spec.runsAlone ? .waitForIdleWorker : .noCredit }
        pending[workerID, default: 0] += 1
        if spec.runsAlone { reserved.insert(workerID) }
        return .worker(workerID)
    }
}
