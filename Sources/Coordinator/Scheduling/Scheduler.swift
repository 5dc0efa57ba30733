import DequeModule
import Foundation
import Shared
import Synchronization

/// Who holds which job, and what may be sent next.
///
/// All decisions are synchronous and made under one Mutex, held for microseconds (rule 7);
/// nothing here awaits, blocks or touches SQLite or sockets. The daemon asks for decisions,
/// records them in SQLite, and sends.
///
/// Credit-based flow control: a worker says in HELLO how many jobs it can hold (its capacity);
/// the scheduler never has more than that in flight at it.
final class Scheduler: Sendable {
    struct Worker: Sendable {
        var id: String
        var routingID: [UInt8]
        var hello: Cull_V1_Hello
        var lastHeard: ContinuousClock.Instant
        var load = Cull_V1_Heartbeat()
        var jobs: Set<Int64> = []
        var photosDone: UInt64 = 0
        var free: Int { Int(hello.capacity) - jobs.count }
    }

    struct InFlight: Sendable {
        var spec: JobSpec
        var workerID: String
        var attempt: Int64
        var deadline: ContinuousClock.Instant
    }

    /// A decision to send `spec` to `workerID`; becomes `InFlight` once recorded.
    struct Assignment: Sendable {
        var spec: JobSpec
        var workerID: String
    }

    private struct State {
        var workers: [String: Worker] = [:]
        var queue: Deque<JobSpec> = []
        /// Assigned but not yet recorded in SQLite (no attempt token yet).
        var assigning: [Int64: Assignment] = [:]
        var inFlight: [Int64: InFlight] = [:]
        var counters = Cull_V1_Counters()
    }

    private let state = Mutex(State())

    // MARK: workers

    /// Registers a worker after HELLO, under `workerID` (the key its routing id gives every
    /// later message). A worker already known (it restarted or reconnected) loses the jobs it
    /// held: they are returned for requeueing.
    func register(workerID: String, hello: Cull_V1_Hello, routingID: [UInt8]) -> [Int64] {
        state.withLock { state in
            let orphaned = state.workers[workerID].map { Array($0.jobs) } ?? []
            for jobID in orphaned { state.inFlight[jobID] = nil }
            state.workers[workerID] = Worker(id: workerID, routingID: routingID, hello: hello, lastHeard: .now)
            return orphaned
        }
    }

    func worker(_ workerID: String) -> Worker? {
        state.withLock { $0.workers[workerID] }
    }

    /// Removes a worker (it said DISCONNECT or went silent); returns the jobs it held.
    func remove(workerID: String) -> [Int64] {
        state.withLock { state in
            guard let worker = state.workers.removeValue(forKey: workerID) else { return [] }
            for jobID in worker.jobs { state.inFlight[jobID] = nil }
            // Jobs assigned to it but not yet recorded stay in `assigning`: `dispatched` sees the
            // worker is gone and the dispatcher takes them back through SQLite.
            return Array(worker.jobs)
        }
    }

    /// Notes a message from a worker; false if the worker is unknown (it must say HELLO).
    func heard(from workerID: String, heartbeat: Cull_V1_Heartbeat? = nil) -> Bool {
        state.withLock { state in
            guard state.workers[workerID] != nil else { return false }
            state.workers[workerID]!.lastHeard = .now
            if let heartbeat { state.workers[workerID]!.load = heartbeat }
            return true
        }
    }

    func routingID(of workerID: String) -> [UInt8]? {
        state.withLock { $0.workers[workerID]?.routingID }
    }

    func workers() -> [Worker] {
        state.withLock { Array($0.workers.values) }.sorted { $0.id < $1.id }
    }

    /// Workers silent for longer than `limit`.
    func silentWorkers(limit: Duration) -> [String] {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.workers.values.filter { now - $0.lastHeard > limit }.map(\.id)
        }
    }

    // MARK: jobs

    func enqueue(_ jobs: [JobSpec], atFront: Bool = false) {
        guard !jobs.isEmpty else { return }
        state.withLock { state in
            if atFront {
                state.queue.insert(contentsOf: jobs, at: state.queue.startIndex)
            } else {
                state.queue.append(contentsOf: jobs)
            }
        }
    }

    var queuedCount: Int { state.withLock { $0.queue.count } }
    var inFlightCount: Int { state.withLock { $0.inFlight.count + $0.assigning.count } }

    /// Assigns queued jobs to workers with free credit, most free credit first, up to `limit`.
    /// A job that must run alone goes only to an idle worker, which then gets nothing else
    /// until it is done; other jobs pass it in the queue meanwhile.
    func assign(limit: Int) -> [Assignment] {
        state.withLock { state in
            var assignments: [Assignment] = []
            var pendingPerWorker: [String: Int] = [:]
            var reserved = Set<String>()  // workers running (or about to run) a job alone
            for assignment in state.assigning.values {
                pendingPerWorker[assignment.workerID, default: 0] += 1
                if assignment.spec.runsAlone { reserved.insert(assignment.workerID) }
            }
            for flight in state.inFlight.values where flight.spec.runsAlone { reserved.insert(flight.workerID) }

            var taken: [Int] = []
            let scanLimit = min(state.queue.count, 4096)
            for index in 0..<scanLimit where assignments.count < limit {
                let spec = state.queue[state.queue.index(state.queue.startIndex, offsetBy: index)]
                var best: (id: String, free: Int)?
                for worker in state.workers.values where !reserved.contains(worker.id) {
                    let pending = pendingPerWorker[worker.id, default: 0]
                    if spec.runsAlone && (!worker.jobs.isEmpty || pending > 0) { continue }
                    let free = worker.free - pending
                    guard free > 0 else { continue }
                    if let current = best, current.free > free || (current.free == free && current.id < worker.id) { continue }
                    best = (worker.id, free)
                }
                guard let workerID = best?.id else {
                    if spec.runsAlone { continue }  // wait for an idle worker; let others pass
                    break                            // no credit anywhere
                }
                let assignment = Assignment(spec: spec, workerID: workerID)
                state.assigning[spec.jobID] = assignment
                pendingPerWorker[workerID, default: 0] += 1
                if spec.runsAlone { reserved.insert(workerID) }
                assignments.append(assignment)
                taken.append(index)
            }
            for index in taken.reversed() {
                state.queue.remove(at: state.queue.index(state.queue.startIndex, offsetBy: index))
            }
            return assignments
        }
    }

    /// The assignment was recorded with `attempt`: the job is in flight until `deadline`.
    /// Returns the worker's routing id to send to, or nil if the worker left meanwhile: the
    /// caller must then take the job back (it is recorded as dispatched).
    func dispatched(jobID: Int64, attempt: Int64, deadline: ContinuousClock.Instant) -> [UInt8]? {
        state.withLock { state in
            guard let assignment = state.assigning.removeValue(forKey: jobID) else { return nil }
            guard state.workers[assignment.workerID] != nil else { return nil }
            var spec = assignment.spec
            spec.dispatches += 1
            state.inFlight[jobID] = InFlight(spec: spec, workerID: assignment.workerID, attempt: attempt, deadline: deadline)
            state.workers[assignment.workerID]!.jobs.insert(jobID)
            return state.workers[assignment.workerID]!.routingID
        }
    }

    /// The assignment could not be recorded (its scan ended, or SQLite failed): drop it.
    func abandonAssignment(jobID: Int64) {
        _ = state.withLock { $0.assigning.removeValue(forKey: jobID) }
    }

    /// A RESULT arrived: frees the credit if it is for the attempt in flight at that worker.
    /// Whether it is stored is decided by SQLite's fence, not here.
    func resultArrived(jobID: Int64, attempt: Int64, workerID: String, photos: Int) {
        state.withLock { state in
            guard let flight = state.inFlight[jobID], flight.attempt == attempt, flight.workerID == workerID else { return }
            state.inFlight[jobID] = nil
            state.workers[workerID]?.jobs.remove(jobID)
            state.workers[workerID]?.photosDone += UInt64(photos)
        }
    }

    /// Jobs past their deadline: taken back from their workers.
    func expired(now: ContinuousClock.Instant = .now) -> [InFlight] {
        state.withLock { state in
            let late = state.inFlight.values.filter { $0.deadline < now }
            for flight in late {
                state.inFlight[flight.spec.jobID] = nil
                state.workers[flight.workerID]?.jobs.remove(flight.spec.jobID)
            }
            return late
        }
    }

    /// Forgets queued and in-flight jobs of scans that ended; returns in-flight ones by worker
    /// so the workers can be told to stop.
    func dropJobs(ofScan scanID: Int64) -> [String: [(jobID: Int64, attempt: Int64)]] {
        state.withLock { state in
            state.queue.removeAll { $0.scanID == scanID }
            var byWorker: [String: [(jobID: Int64, attempt: Int64)]] = [:]
            for (jobID, flight) in state.inFlight where flight.spec.scanID == scanID {
                state.inFlight[jobID] = nil
                state.workers[flight.workerID]?.jobs.remove(jobID)
                byWorker[flight.workerID, default: []].append((jobID, flight.attempt))
            }
            return byWorker
        }
    }

    /// Every job the scheduler holds: queued, being assigned or in flight. The reconciliation
    /// sweep compares this with SQLite.
    func knownJobIDs() -> Set<Int64> {
        state.withLock { state in
            var ids = Set(state.inFlight.keys)
            ids.formUnion(state.assigning.keys)
            for spec in state.queue { ids.insert(spec.jobID) }
            return ids
        }
    }

    func inFlight(jobID: Int64) -> InFlight? {
        state.withLock { $0.inFlight[jobID] }
    }

    // MARK: counters

    func count(_ update: (inout Cull_V1_Counters) -> Void) {
        state.withLock { update(&$0.counters) }
    }

    var counters: Cull_V1_Counters { state.withLock { $0.counters } }
}
