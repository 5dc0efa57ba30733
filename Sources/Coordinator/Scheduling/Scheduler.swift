import DequeModule
import Foundation
import Shared
import Synchronization

/// Who holds which job, and what may be sent next: the in-memory half of the job lifecycle.
///
/// All decisions are synchronous and made under one Mutex, held for microseconds (rule 7);
/// nothing here awaits, blocks or touches SQLite or sockets. The coordinator asks for
/// decisions, records them in SQLite, and sends. Each job in flight carries its
/// `JobLifecycle`, which decides whether a RESULT is the one it waits for.
///
/// Credit-based flow control: a worker says in HELLO how many jobs it can hold (its capacity);
/// the scheduler never has more than that out at it, and gives it that much only as it earns
/// it by answering (`Worker.credit(at:)`). Credit comes back only when the worker
/// answers the dispatch it holds (its RESULT, right attempt, right generation), when the job is
/// taken back (deadline, worker lost), or when the worker goes away: never on a RESULT that
/// does not match, so a forged or stale answer cannot make room for more work.
final class Scheduler: Sendable {
    /// How long a worker gets no new work after its `missed`-th deadline missed in a row: 10 s,
    /// doubling, at most 10 minutes. A worker that holds jobs without answering (hung, or
    /// hostile: it heartbeats and sits on them) thus ties up ever less of a scan, while one
    /// that had a bad moment is back at full speed after its next answer.
    static func quarantine(afterMissing missed: Int) -> Duration {
        .seconds(min(600, 10 << min(max(missed - 1, 0), 6)))
    }

    struct InFlight: Sendable {
        var spec: JobSpec
        /// In the `.dispatched` phase, with attempt, worker and deadline.
        var lifecycle: JobLifecycle
        /// Its scan ended: the worker was told to stop. The credit stays taken until the worker
        /// answers or the deadline passes; nothing it sends is stored.
        var cancelled = false
        /// When it was sent (its turnaround, and the probation limit, count from here).
        var dispatchedAt: ContinuousClock.Instant
        /// Taken back by `expired()` because its worker, on probation, held it too long: the
        /// dispatch does not count against the job (`Probation`).
        var takenOnProbation = false

        var workerID: String { lifecycle.dispatch?.workerID ?? "" }
        var attempt: Int64 { lifecycle.dispatch?.attempt ?? 0 }
        var deadline: ContinuousClock.Instant { lifecycle.dispatch?.deadline ?? .now }
        var takeBackRequest: CullStore.TakeBackRequest {
            .init(jobID: spec.jobID, attempt: attempt, runsAlone: spec.runsAlone, refundsDispatch: takenOnProbation)
        }
    }

    /// A decision to send `spec` to `workerID`; becomes `InFlight` once recorded.
    struct Assignment: Sendable {
        var spec: JobSpec
        var workerID: String
    }

    /// What a RESULT is, as far as memory can tell (SQLite's fence has the last word).
    enum ResultAdmission: Sendable, Equatable {
        /// The dispatch in flight: buffer it for storing. Its credit is free again.
        case accepted
        /// The dispatch in flight of a cancelled job: its credit is free again, nothing to store.
        case cancelledJob
        /// Not the dispatch in flight (late, duplicate, another worker's, another generation):
        /// dropped, and no credit changes hands.
        case refused(JobLifecycle.Refusal?)
    }

    fileprivate struct State {
        var workers: [String: Worker] = [:]
        var queue: Deque<JobSpec> = []
        /// Assigned but not yet recorded in SQLite (no attempt token yet).
        var assigning: [Int64: Assignment] = [:]
        var inFlight: [Int64: InFlight] = [:]
        /// Accepted results waiting to be stored: still the scheduler's to know about.
        var storing: Set<Int64> = []
        var counters = Cull_V1_Counters()
        var probation: Probation
        /// Dispatches taken back on probation, by job: a late answer to one still proves its
        /// worker. Bounded: forgotten oldest first past `maxProbationTakeBacks`.
        var probationTakeBacks: [Int64: (attempt: Int64, workerID: String)] = [:]
        var probationTakeBackOrder: Deque<Int64> = []
        /// What workers that went away owed, for when they come back.
        var departed = DepartedWorkers()
    }

    static let maxProbationTakeBacks = 4096

    private let state: Mutex<State>
    /// What "now" is for heartbeats and deadlines (tests advance it by hand).
    let clock: CoordinatorClock

    init(clock: CoordinatorClock = CoordinatorClock(), probation: Probation = Probation()) {
        self.clock = clock
        self.state = Mutex(State(probation: probation))
    }

    // MARK: workers

    /// Registers a worker after HELLO, under `workerID` (the key its routing id gives every
    /// later message). A worker already known (it restarted or reconnected) loses the jobs it
    /// held: they are returned for taking back. It keeps its missed deadlines and quarantine,
    /// as does one that left or was dropped as silent (`DepartedWorkers`): saying HELLO again
    /// must not wash away what it owes (it starts on probation again).
    func register(workerID: String, hello: Cull_V1_Hello, routingID: [UInt8], keyName: String? = nil) -> [CullStore.TakeBackRequest] {
        state.withLock { state in
            let orphaned = state.release(workerID: workerID)
            let now = clock.now
            var worker = Worker(id: workerID, routingID: routingID, hello: hello, keyName: keyName, lastHeard: now, joined: now)
            if let known = state.workers[workerID] {
                worker.missedDeadlines = known.missedDeadlines
                worker.quarantinedUntil = known.quarantinedUntil
            } else if let owed = state.departed.take(workerID) {
                worker.missedDeadlines = owed.missedDeadlines
                worker.quarantinedUntil = owed.quarantinedUntil
            }
            state.workers[workerID] = worker
            return orphaned
        }
    }

    func worker(_ workerID: String) -> Worker? {
        state.withLock { $0.workers[workerID] }
    }

    /// Removes a worker (it said DISCONNECT or went silent); returns the jobs it held.
    func remove(workerID: String) -> [CullStore.TakeBackRequest] {
        state.withLock { state in
            let held = state.release(workerID: workerID)
            // Jobs assigned to it but not yet recorded stay in `assigning`: `dispatched` sees the
            // worker is gone and the dispatcher takes them back through SQLite.
            if let gone = state.workers.removeValue(forKey: workerID) { state.departed.remember(gone) }
            return held
        }
    }

    /// Notes a message from a worker; false if the worker is unknown (it must say HELLO).
    func heard(from workerID: String, heartbeat: Cull_V1_Heartbeat? = nil) -> Bool {
        state.withLock { state in
            guard state.workers[workerID] != nil else { return false }
            state.workers[workerID]!.lastHeard = clock.now
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
        let now = clock.now
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

    /// Assigns queued jobs to workers with free credit (most free credit first), up to `limit`.
    func assign(limit: Int) -> [Assignment] {
        state.withLock { state in
            var planner = AssignmentPlanner(workers: state.workers, assigning: state.assigning.values, inFlight: state.inFlight.values,
                                            now: clock.now)
            var assignments: [Assignment] = []
            var taken: [Int] = []
            for index in 0..<min(state.queue.count, 4096) where assignments.count < limit {
                let spec = state.queue[state.queue.index(state.queue.startIndex, offsetBy: index)]
                let placement = planner.place(spec)
                guard case .worker(let workerID) = placement else {
                    if placement == .waitForIdleWorker { continue }  // it waits; later jobs may pass it
                    break                                            // no credit anywhere
                }
                let assignment = Assignment(spec: spec, workerID: workerID)
                state.assigning[spec.jobID] = assignment
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
            guard let assignment = state.assigning.removeValue(forKey: jobID),
                  let routingID = state.workers[assignment.workerID]?.routingID else { return nil }
            var spec = assignment.spec
            var lifecycle = JobLifecycle(jobID: jobID, generation: spec.generation, photoCount: spec.photos.count, dispatches: spec.dispatches)
            do throws(JobLifecycle.Refusal) {
                try lifecycle.dispatch(attempt: attempt, to: assignment.workerID, deadline: deadline)
            } catch { return nil }  // unreachable: a fresh lifecycle is queued
            spec.dispatches = lifecycle.dispatches
            state.inFlight[jobID] = InFlight(spec: spec, lifecycle: lifecycle, dispatchedAt: clock.now)
            state.workers[assignment.workerID]!.jobs.insert(jobID)
            return routingID
        }
    }

    /// The assignment could not be recorded (its scan ended, or SQLite failed): drop it.
    func abandonAssignment(jobID: Int64) {
        _ = state.withLock { $0.assigning.removeValue(forKey: jobID) }
    }

    /// A RESULT arrived. Only the dispatch in flight (job, attempt, worker, generation) frees
    /// its credit; anything else is refused before it is buffered.
    func resultArrived(_ result: Cull_V1_Result, from workerID: String) -> ResultAdmission {
        state.withLock { state in
            guard let flight = state.inFlight[result.jobID] else {
                state.lateProbationAnswer(result, from: workerID)
                return .refused(nil)
            }
            do throws(JobLifecycle.Refusal) {
                try flight.lifecycle.check(attempt: result.attempt, workerID: workerID, generation: result.generation)
            } catch {
                state.lateProbationAnswer(result, from: workerID)
                return .refused(error)
            }
            state.inFlight[result.jobID] = nil
            state.workers[workerID]?.jobs.remove(result.jobID)
            if !flight.cancelled { state.probation.recordTurnaround(clock.now - flight.dispatchedAt) }
            // It answered: whatever it missed before, it has earned its credit back, and more.
            state.workers[workerID]?.missedDeadlines = 0
            state.workers[workerID]?.quarantinedUntil = nil
            state.workers[workerID].map { state.workers[workerID]!.answered = min($0.answered + 1, 1_000) }
            if flight.cancelled { return .cancelledJob }
            state.workers[workerID]?.photosDone += UInt64(result.outcomes.count)
            state.storing.insert(result.jobID)
            return .accepted
        }
    }

    /// Accepted results were written (or given up on): the jobs are SQLite's alone again.
    func stored(jobIDs: [Int64]) {
        state.withLock { state in
            for jobID in jobIDs { state.storing.remove(jobID) }
        }
    }

    /// Jobs past their deadline, or held past the probation limit by a worker that has not
    /// answered yet (`takenOnProbation`): taken from their workers (credit freed). Cancelled
    /// ones among them need nothing more; the others must be taken back.
    func expired() -> [InFlight] {
        let now = clock.now
        return state.withLock { state in
            // At a scan's tail (nothing queued, an answering worker with room) the shorter limit.
            let tail = state.queue.isEmpty && state.assigning.isEmpty
                && state.workers.values.contains { $0.answered > 0 && $0.free(at: now) > 0 }
            let probationLimit = tail ? state.probation.tailLimit : state.probation.limit
            var late: [InFlight] = []
            for flight in state.inFlight.values {
                if flight.deadline < now {
                    late.append(flight)
                    continue
                }
                guard let probationLimit, !flight.cancelled, now - flight.dispatchedAt > probationLimit,
                      state.workers[flight.workerID]?.answered == 0 else { continue }
                var taken = flight
                taken.takenOnProbation = true
                late.append(taken)
                state.rememberProbationTakeBack(flight)
            }
            for flight in late {
                state.inFlight[flight.spec.jobID] = nil
                state.workers[flight.workerID]?.jobs.remove(flight.spec.jobID)
                // A job it was told to stop (its scan ended) and did not answer is not held against it.
                guard !flight.cancelled, var worker = state.workers[flight.workerID] else { continue }
                worker.missedDeadlines += 1
                worker.quarantinedUntil = now + Self.quarantine(afterMissing: worker.missedDeadlines)
                state.workers[flight.workerID] = worker
            }
            return late
        }
    }

    /// Forgets the queued jobs of a scan that ended and marks its in-flight ones cancelled;
    /// returns those by worker so the workers can be told to stop.
    func dropJobs(ofScan scanID: Int64) -> [String: [(jobID: Int64, attempt: Int64)]] {
        state.withLock { state in
            state.queue.removeAll { $0.scanID == scanID }
            var byWorker: [String: [(jobID: Int64, attempt: Int64)]] = [:]
            for (jobID, flight) in state.inFlight where flight.spec.scanID == scanID && !flight.cancelled {
                state.inFlight[jobID]!.cancelled = true
                byWorker[flight.workerID, default: []].append((jobID, flight.attempt))
            }
            return byWorker
        }
    }

    /// Every job the scheduler holds: queued, being assigned, in flight or being stored. The
    /// reconciliation sweep compares this with SQLite.
    func knownJobIDs() -> Set<Int64> {
        state.withLock { state in
            var ids = Set(state.inFlight.keys)
            ids.formUnion(state.assigning.keys)
            ids.formUnion(state.storing)
            for spec in state.queue { ids.insert(spec.jobID) }
            return ids
        }
    }

    // MARK: counters

    func count(_ update: (inout Cull_V1_Counters) -> Void) {
        state.withLock { update(&$0.counters) }
    }

    var counters: Cull_V1_Counters { state.withLock { $0.counters } }
}

extension Scheduler.State {
    fileprivate mutating func rememberProbationTakeBack(_ flight: Scheduler.InFlight) {
        if probationTakeBacks.updateValue((flight.attempt, flight.workerID), forKey: flight.spec.jobID) == nil {
            probationTakeBackOrder.append(flight.spec.jobID)
        }
        while probationTakeBackOrder.count > Scheduler.maxProbationTakeBacks, let oldest = probationTakeBackOrder.popFirst() {
            probationTakeBacks[oldest] = nil
        }
    }

    /// A RESULT that is not the dispatch in flight, but answers one taken back from its worker
    /// on probation: not stored (the fence holds), but the worker has shown it works and is
    /// judged by the job deadline from now on.
    fileprivate mutating func lateProbationAnswer(_ result: Cull_V1_Result, from workerID: String) {
        guard let taken = probationTakeBacks[result.jobID], taken.attempt == result.attempt, taken.workerID == workerID,
              var worker = workers[workerID] else { return }
        probationTakeBacks[result.jobID] = nil
        worker.answered = max(worker.answered, 1)
        worker.missedDeadlines = 0
        worker.quarantinedUntil = nil
        workers[workerID] = worker
    }

    /// Takes every job `workerID` holds away from it (credit and in-flight records), keeping
    /// the worker's entry; returns what must be taken back. Cancelled jobs need nothing more.
    fileprivate mutating func release(workerID: String) -> [CullStore.TakeBackRequest] {
        guard let worker = workers[workerID] else { return [] }
        var held: [CullStore.TakeBackRequest] = []
        for jobID in worker.jobs {
            if let flight = inFlight.removeValue(forKey: jobID), !flight.cancelled { held.append(flight.takeBackRequest) }
        }
        workers[workerID]!.jobs = []
        return held
    }
}
