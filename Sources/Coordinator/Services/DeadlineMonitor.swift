import Logging
import ServiceLifecycle
import Shared

/// Rule 3 on the coordinator's side: every tick (five a second), jobs past their deadline are taken
/// back (and their workers told to stop them), and workers silent for `liveness` heartbeats
/// are removed with their jobs. Independent of any deadline the worker keeps.
///
/// A tick that comes much later than asked means this process was itself stalled (paused,
/// swapped, its threads starved): the heartbeats and results that arrived meanwhile are still
/// in the inbox, unread, so judging silence or deadlines then would blame the workers for the
/// coordinator's own pause. Such a tick judges nothing; the next one, after the channel has
/// caught up, does, however late it is: a coordinator that stays overloaded must still keep
/// its deadlines (rule 3), so no two ticks in a row are skipped.
struct DeadlineMonitor: Service {
    let coordinator: Coordinator
    /// How late a tick may be before it counts as a stall of this process.
    static let stallAllowance: Duration = .seconds(1)
    /// Jobs taken back on probation are logged a few times a minute, not each.
    let probationLog = LogThrottle()
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        await cancelWhenGracefulShutdown {
            let tick = coordinator.configuration.deadlineTick
            var stalls = StallGuard(tick: tick, allowance: Self.stallAllowance, start: .now)
            while true {
                do { try await Task.sleep(for: tick) } catch { return }
                if let stall = stalls.skip(at: .now) {
                    coordinator.logger.notice("the coordinator itself was stalled; judging no worker or deadline until it has read its inbox",
                                              metadata: ["stall": "\(stall)"])
                    continue
                }
                await judge()
            }
        }
    }

    /// One tick's work: late jobs and silent workers, judged by the coordinator's clock.
    func judge() async {
        await expireDeadlines()
        await removeSilentWorkers()
        coordinator.dispatchBell.ring()
    }

    func expireDeadlines() async {
        let configuration = coordinator.configuration
        var late: [CullStore.TakeBackRequest] = []
        var onProbation: [CullStore.TakeBackRequest] = []
        for flight in coordinator.scheduler.expired() {
            var cancel = Cull_V1_CancelJobs()
            cancel.jobIds = [flight.spec.jobID]
            cancel.attempts = [flight.attempt]
            cancel.reason = flight.takenOnProbation ? "held too long by a worker that has not answered yet" : "deadline passed"
            if let routingID = coordinator.scheduler.routingID(of: flight.workerID) {
                coordinator.work.send([routingID] + WireCodec.encode(.cancelJobs(cancel)))
            }
            // A cancelled job's worker just never answered: its credit is back, nothing to redo.
            guard !flight.cancelled else { continue }
            let missed = coordinator.scheduler.worker(flight.workerID)?.missedDeadlines ?? 0
            let metadata: Logging.Logger.Metadata = [
                "job": "\(flight.spec.jobID)", "worker": "\(flight.workerID)", "missed in a row": "\(missed)",
                "no new work for": "\(Scheduler.quarantine(afterMissing: missed).millisecondsDescription)"]
            if flight.takenOnProbation {
                // Fifty silent workers make a hundred of these at once: throttled.
                probationLog.warning(coordinator.logger, """
                    a worker that has not answered yet held a job longer than answering workers take; requeueing it (not counted \
                    against the job), and the worker gets no new work for a while
                    """, metadata: metadata)
                onProbation.append(flight.takeBackRequest)
            } else {
                coordinator.logger.warning("job missed its deadline; requeueing, and the worker gets no new work for a while", metadata: metadata)
                late.append(flight.takeBackRequest)
            }
        }
        await coordinator.takeBack(late, reason: .timeout, why: "it missed its \(configuration.jobDeadline.millisecondsDescription) deadline")
        await coordinator.takeBack(onProbation, reason: .timeout, why: "its worker, on probation, held it too long")
    }

    func removeSilentWorkers() async {
        let configuration = coordinator.configuration
        for workerID in coordinator.scheduler.silentWorkers(limit: configuration.heartbeatInterval * configuration.heartbeatLiveness) {
            let jobs = coordinator.scheduler.remove(workerID: workerID)
            coordinator.logger.warning("worker went silent; requeueing its jobs", metadata: ["worker": "\(workerID)", "jobs": "\(jobs.count)"])
            await coordinator.takeBack(jobs, reason: .workerLost, why: "its worker stopped answering", suspect: true)
        }
    }
}

/// Decides which ticks of a periodic check may judge: not one that comes more than `allowance`
/// late (this process was stalled, and what arrived meanwhile is unread), but never two in a
/// row either, so a process that stays overloaded still keeps its deadlines.
struct StallGuard {
    let tick: Duration
    let allowance: Duration
    private var last: ContinuousClock.Instant
    private var skippedLast = false

    init(tick: Duration, allowance: Duration, start: ContinuousClock.Instant) {
        self.tick = tick
        self.allowance = allowance
        last = start
    }

    /// For a tick at `now`: how long this process was stalled, if this tick should judge
    /// nothing; nil if it should judge.
    mutating func skip(at now: ContinuousClock.Instant) -> Duration? {
        defer { last = now }
        let late = now - last - tick
        guard late > allowance, !skippedLast else {
            skippedLast = false
            return nil
        }
        skippedLast = true
        return late
    }
}
