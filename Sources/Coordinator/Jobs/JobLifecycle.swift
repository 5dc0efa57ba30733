/// The stored states of a job (the `jobs.state` column).
enum JobState: String, Sendable, CaseIterable {
    /// Waiting for a worker with free credit.
    case queued
    /// Sent to one worker under one attempt token; only that (attempt, worker) may complete it.
    case dispatched
    /// Its result was stored.
    case done
    /// It used up its dispatches and was replaced by one job per photo.
    case split
    /// A lone photo that used up its dispatches: recorded failed by the coordinator.
    case failed
    /// Its scan ended (cancelled, superseded, failed) before it finished.
    case abandoned

    var isOpen: Bool { self == .queued || self == .dispatched }
}

/// One job's life, decided in one place:
///
/// ```
/// queued ──dispatch(attempt, worker)──▶ dispatched ──complete(same attempt, worker, generation)──▶ done
///   ▲                                       │
///   └───────takeBack(same attempt): requeue─┤──takeBack, dispatches used up, >1 photo──▶ split
///                                           └──takeBack, dispatches used up, 1 photo───▶ failed
/// queued | dispatched ──abandon (scan ended)──▶ abandoned        dispatched ──recover (restart)──▶ queued
/// ```
///
/// A value type with no sockets and no SQLite: the scheduler (memory) and the store (SQLite,
/// inside the transaction that writes) both build one from what they hold and apply its
/// decision, so the two can never disagree about what a transition means. Every transition
/// that comes from outside is fenced by the attempt token it names (rule 4): a late RESULT,
/// a second deadline or a stale requeue for an old attempt is refused and changes nothing.
struct JobLifecycle: Sendable, Equatable {
    struct Dispatch: Sendable, Equatable {
        var attempt: Int64
        var workerID: String
        /// The coordinator's own deadline for this dispatch (memory only; nil when read back
        /// from SQLite, which does not keep deadlines across restarts).
        var deadline: ContinuousClock.Instant?
    }

    enum Phase: Sendable, Equatable {
        case queued
        case dispatched(Dispatch)
        case done, split, failed, abandoned
    }

    /// Why a transition was refused: the job is not where the caller thinks it is.
    enum Refusal: Error, Sendable, Equatable {
        /// The job is not in a state that allows the transition (e.g. already done).
        case wrongState(JobState)
        /// It is dispatched, but under another attempt (the caller's is late or forged).
        case otherAttempt(current: Int64)
        /// Right attempt, but another worker holds it.
        case otherWorker(current: String)
        /// The result is for another generation than the job's scan.
        case otherGeneration(current: Int64)
    }

    /// What taking a job back from its worker leads to.
    enum TakeBack: Sendable, Equatable {
        /// Queue it again: it has dispatches left.
        case requeue
        /// Out of dispatches with several photos: one new job per photo.
        case split
        /// Out of dispatches with one photo: that photo is recorded failed.
        case fail
    }

    let jobID: Int64
    /// The generation of the job's scan; results must echo it.
    let generation: Int64
    /// Photos still to analyse.
    let photoCount: Int
    private(set) var phase: Phase
    /// Dispatches so far (SQLite keeps it, so it survives restarts).
    private(set) var dispatches: Int

    init(jobID: Int64, generation: Int64, photoCount: Int, phase: Phase = .queued, dispatches: Int = 0) {
        self.jobID = jobID
        self.generation = generation
        self.photoCount = photoCount
        self.phase = phase
        self.dispatches = dispatches
    }

    var state: JobState {
        switch phase {
        case .queued: .queued
        case .dispatched: .dispatched
        case .done: .done
        case .split: .split
        case .failed: .failed
        case .abandoned: .abandoned
        }
    }

    /// The dispatch in flight, if any.
    var dispatch: Dispatch? {
        if case .dispatched(let dispatch) = phase { return dispatch }
        return nil
    }

    /// queued → dispatched. The attempt token must be fresh (the store draws it from a sequence
    /// that only grows).
    mutating func dispatch(attempt: Int64, to workerID: String, deadline: ContinuousClock.Instant? = nil) throws(Refusal) {
        guard case .queued = phase else { throw .wrongState(state) }
        phase = .dispatched(Dispatch(attempt: attempt, workerID: workerID, deadline: deadline))
        dispatches += 1
    }

    /// Whether a RESULT from `workerID` for `attempt` and `generation` is the one this job
    /// waits for. Checks only; `complete` applies it.
    func check(attempt: Int64, workerID: String, generation: Int64) throws(Refusal) {
        guard case .dispatched(let current) = phase else { throw .wrongState(state) }
        guard current.attempt == attempt else { throw .otherAttempt(current: current.attempt) }
        guard current.workerID == workerID else { throw .otherWorker(current: current.workerID) }
        guard self.generation == generation else { throw .otherGeneration(current: self.generation) }
    }

    /// dispatched → done, for the dispatch in flight only.
    mutating func complete(attempt: Int64, workerID: String, generation: Int64) throws(Refusal) {
        try check(attempt: attempt, workerID: workerID, generation: generation)
        phase = .done
    }

    /// dispatched → queued | split | failed: the coordinator takes the job back from the
    /// worker holding `attempt` (deadline passed, worker lost). With dispatches left it is
    /// queued again; otherwise a job of several photos is split, and a lone photo fails.
    /// Not `counted` (a worker on probation held it too long, `Probation`): the dispatch is
    /// given back and the job queued again, whatever it used.
    mutating func takeBack(attempt: Int64, maxDispatches: Int, counted: Bool = true) throws(Refusal) -> TakeBack {
        guard case .dispatched(let current) = phase else { throw .wrongState(state) }
        guard current.attempt == attempt else { throw .otherAttempt(current: current.attempt) }
        if !counted {
            dispatches = max(0, dispatches - 1)
            phase = .queued
            return .requeue
        }
        if dispatches < maxDispatches {
            phase = .queued
            return .requeue
        }
        if photoCount > 1 {
            phase = .split
            return .split
        }
        phase = .failed
        return .fail
    }

    /// queued | dispatched → abandoned: the job's scan ended. False if the job had already
    /// finished (nothing changes then).
    @discardableResult
    mutating func abandon() -> Bool {
        guard state.isOpen else { return false }
        phase = .abandoned
        return true
    }

    /// dispatched → queued after a coordinator restart: every attempt handed out before it is
    /// dead (the in-memory deadlines are gone), so the job is queued for a fresh one. The
    /// dispatch does not count against the job's limit twice: it was counted when made.
    mutating func recover() {
        if case .dispatched = phase { phase = .queued }
    }
}
