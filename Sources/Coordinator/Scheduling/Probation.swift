/// How long a worker that has answered nothing yet may hold a job before the job is taken back.
///
/// The job deadline (`--job-deadline`, 300 s) is sized for the slowest honest case: a job of
/// photos on a slow mount, each read allowed its own fetch timeout. A worker that has never
/// answered has shown nothing of its speed, and one that says HELLO, heartbeats and sits on its
/// jobs (hung at start, or hostile: issue 11 measured fifty such workers holding every job of a
/// scan for a minute) would keep those jobs for the whole deadline. So a worker on probation
/// gets a limit drawn from what answering workers really take: `factor` times the 90th
/// percentile of the last `historyCount` turnarounds (dispatch to RESULT, queueing at the
/// worker included), at least `floor`, never above the job deadline. Until some worker has
/// answered there is nothing to draw from, and the job deadline applies.
///
/// A job taken back on probation is queued again without counting the dispatch against it: the
/// job did nothing wrong, and a crowd of silent workers must not use up a photo's dispatches
/// and get it recorded failed. The worker is quarantined as for a missed deadline (10 s,
/// doubling with each miss in a row), so a silent crowd holds ever less of a scan. An honest
/// worker that is merely slower than the limit is not shut out: its late answer to a job taken
/// back on probation is not stored (the attempt fence holds), but it proves the worker, which
/// from then on is judged by the job deadline alone (`Scheduler.resultArrived`).
///
/// At the end of a scan, when nothing is queued and an answering worker has room, the limit is
/// shorter (`tailLimit`): the jobs silent workers sit on are then all that keeps the scan from
/// finishing.
///
/// The numbers: the floor of 5 s is about 10 times the turnaround of a 16-photo job of small
/// photos in a debug build (`FairSchedulingTests`, about 0.4 s with the worker's queue), and
/// about 3 times that of 16 camera JPEGs of 4 MB read over 1 GbE (0.6 s of reading, 1 s of
/// decoding on one core); the factor of 8 leaves a new worker on a machine several times slower
/// than the others time for its first job.
struct Probation: Sendable {
    var floor: Duration = .seconds(5)
    var factor = 8
    /// The job deadline: past it the ordinary deadline governs.
    var ceiling: Duration = .seconds(300)
    static let historyCount = 64

    /// The most recent turnarounds of answered jobs, oldest overwritten first.
    private var history: [Duration] = []
    private var nextSlot = 0

    init(floor: Duration = .seconds(5), factor: Int = 8, ceiling: Duration = .seconds(300)) {
        self.floor = floor
        self.factor = factor
        self.ceiling = ceiling
    }

    mutating func recordTurnaround(_ turnaround: Duration) {
        if history.count < Self.historyCount {
            history.append(turnaround)
        } else {
            history[nextSlot] = turnaround
        }
        nextSlot = (nextSlot + 1) % Self.historyCount
    }

    /// The 90th percentile of recent turnarounds; nil before any answer.
    var typical: Duration? {
        guard !history.isEmpty else { return nil }
        return history.sorted()[(history.count - 1) * 9 / 10]
    }

    /// How long a worker on probation may hold a job; nil when the ordinary job deadline
    /// applies (no answers seen yet, or the limit would reach it).
    var limit: Duration? {
        guard let typical else { return nil }
        let limit = max(floor, typical * factor)
        return limit < ceiling ? limit : nil
    }

    /// How long a worker on probation may hold a job once nothing is queued and an answering
    /// worker has room: twice the typical turnaround, at least a second. At the end of a scan
    /// the jobs silent workers sit on are all that is left, and an answering worker that would
    /// finish them in a turnaround should not wait out the whole limit for them.
    var tailLimit: Duration? {
        guard let typical else { return nil }
        return min(max(.seconds(1), typical * 2), limit ?? ceiling)
    }
}
