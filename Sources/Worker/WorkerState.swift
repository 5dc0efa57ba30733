import Shared

/// A job as the worker keys it: the same job id may come back under a new attempt (the
/// coordinator requeued it) while the old attempt still runs here; the two are different work.
struct JobKey: Hashable, Sendable {
    var jobID: Int64
    var attempt: Int64

    init(jobID: Int64, attempt: Int64) {
        self.jobID = jobID
        self.attempt = attempt
    }

    init(_ job: Cull_V1_Job) { self.init(jobID: job.jobID, attempt: job.attempt) }
}

/// The worker's shared state, behind one Mutex in `WorkerDaemon` (rule 7). Decisions about
/// jobs are made here, as plain value mutations, so they are easy to read and to test.
struct WorkerState: Sendable {
    var isWelcomed = false
    var everWelcomed = false
    var lastHeard: ContinuousClock.Instant = .now
    /// When the worker last said it hears nothing (logged once a minute while it lasts).
    var lastSilenceWarning: ContinuousClock.Instant?
    var helloSentAt: ContinuousClock.Instant?
    var helloBackoff: Duration = .milliseconds(250)
    /// Jobs being worked on.
    var jobsInFlight: Set<JobKey> = []
    /// Of those, the ones the coordinator cancelled (a subset: bounded by capacity).
    var cancelledJobs: Set<JobKey> = []
    /// Heartbeat settings; WELCOME may change them.
    var heartbeatInterval: Duration
    var heartbeatLiveness: Int
    var draining = false
    var exitStatus: WorkerExitStatus = .normal
    var versionMismatches = 0
    /// Once one message in our version arrived, the coordinator is compatible for good.
    var heardValidMessage = false

    init(heartbeatInterval: Duration, heartbeatLiveness: Int) {
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatLiveness = heartbeatLiveness
    }

    mutating func welcomed(_ welcome: Cull_V1_Welcome) {
        isWelcomed = true
        everWelcomed = true
        helloBackoff = .milliseconds(250)
        // The coordinator's settings win, so both sides agree on who is dead.
        if welcome.heartbeatIntervalMs >= 10 { heartbeatInterval = .milliseconds(Int64(welcome.heartbeatIntervalMs)) }
        if welcome.heartbeatLiveness >= 1 { heartbeatLiveness = Int(welcome.heartbeatLiveness) }
    }

    enum Admission: Equatable { case accepted, draining, duplicate, overCapacity }

    /// Whether a JOB may start: not while draining, not twice, and never beyond `capacity`.
    mutating func admit(_ key: JobKey, capacity: Int) -> Admission {
        if draining { return .draining }
        if jobsInFlight.contains(key) { return .duplicate }
        if jobsInFlight.count >= capacity { return .overCapacity }
        jobsInFlight.insert(key)
        return .accepted
    }

    /// Marks the running jobs a CANCEL_JOBS names (with their attempt, when it gives one) as
    /// cancelled; returns those it hit. A late cancel for an old attempt never hits a newer one.
    mutating func cancel(_ cancel: Cull_V1_CancelJobs) -> [JobKey] {
        var hit: [JobKey] = []
        for (index, jobID) in cancel.jobIds.enumerated() {
            let running = jobsInFlight.filter { $0.jobID == jobID }
            for key in running where index >= cancel.attempts.count || cancel.attempts[index] == key.attempt {
                cancelledJobs.insert(key)
                hit.append(key)
            }
        }
        return hit
    }

    mutating func finish(_ key: JobKey) {
        jobsInFlight.remove(key)
        cancelledJobs.remove(key)
    }
}
