import ServiceLifecycle
import Shared

/// Rule 3 on the coordinator's side: five times a second, jobs past their deadline are taken
/// back (and their workers told to stop them), and workers silent for `liveness` heartbeats
/// are removed with their jobs. Independent of any deadline the worker keeps.
///
/// A tick that comes much later than asked means this process was itself stalled (paused,
/// swapped, its threads starved): the heartbeats and results that arrived meanwhile are still
/// in the inbox, unread, so judging silence or deadlines then would blame the workers for the
/// coordinator's own pause. Such a tick judges nothing; the next one, after the channel has
/// caught up, does.
struct DeadlineMonitor: Service {
    let coordinator: Coordinator
    static let tick: Duration = .milliseconds(200)
    /// How late a tick may be before it counts as a stall of this process.
    static let stallAllowance: Duration = .seconds(1)
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        await cancelWhenGracefulShutdown {
            var last = ContinuousClock.now
            while true {
                do { try await Task.sleep(for: Self.tick) } catch { return }
                let now = ContinuousClock.now
                defer { last = now }
                if now - last > Self.tick + Self.stallAllowance {
                    coordinator.logger.notice("the coordinator itself was stalled; judging no worker or deadline until it has read its inbox",
                                              metadata: ["stall": "\(now - last - Self.tick)"])
                    continue
                }
                await expireDeadlines()
                await removeSilentWorkers()
                coordinator.dispatchBell.ring()
            }
        }
    }

    func expireDeadlines() async {
        let configuration = coordinator.configuration
        var late: [CullStore.TakeBackRequest] = []
        for flight in coordinator.scheduler.expired() {
            var cancel = Cull_V1_CancelJobs()
            cancel.jobIds = [flight.spec.jobID]
            cancel.attempts = [flight.attempt]
            cancel.reason = "deadline passed"
            if let routingID = coordinator.scheduler.routingID(of: flight.workerID) {
                coordinator.work.send([routingID] + WireCodec.encode(.cancelJobs(cancel)))
            }
            // A cancelled job's worker just never answered: its credit is back, nothing to redo.
            guard !flight.cancelled else { continue }
            coordinator.logger.warning("job missed its deadline; requeueing", metadata: ["job": "\(flight.spec.jobID)", "worker": "\(flight.workerID)"])
            late.append(flight.takeBackRequest)
        }
        await coordinator.takeBack(late, reason: .timeout, why: "it missed its \(configuration.jobDeadline.millisecondsDescription) deadline")
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
