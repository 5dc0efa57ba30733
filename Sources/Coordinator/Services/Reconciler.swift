import ServiceLifecycle
import Shared

/// The safety net under the event-driven paths: every few seconds SQLite (the truth) and the
/// scheduler (memory) are compared. A job SQLite has open that the scheduler has not held for
/// two sweeps in a row (a write that failed, a race with a departing worker) is taken back
/// and queued again; a running scan whose walk is over gets its completion checked; a running
/// scan with no walk under way and an unfinished walk gets one. Nothing can stay stuck for
/// longer than two sweeps.
struct Reconciler: Service {
    let coordinator: Coordinator
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        await cancelWhenGracefulShutdown {
            var previouslyUnknown: Set<Int64> = []
            while true {
                do { try await Task.sleep(for: coordinator.configuration.reconcileInterval) } catch { return }
                do {
                    previouslyUnknown = try await sweep(previouslyUnknown: previouslyUnknown)
                } catch is CancellationError {
                    return
                } catch {
                    coordinator.logger.error("reconciliation sweep failed; retrying", metadata: ["error": "\(coordinator.describe(error))"])
                }
            }
        }
    }

    /// One sweep; returns the open jobs the scheduler did not hold this time.
    func sweep(previouslyUnknown: Set<Int64>) async throws -> Set<Int64> {
        let store = coordinator.store
        let open = try await store.openJobs()
        let unknown = Set(open.keys).subtracting(coordinator.scheduler.knownJobIDs())
        let lost = unknown.intersection(previouslyUnknown)
        if !lost.isEmpty {
            coordinator.logger.warning("recovering jobs the scheduler lost track of", metadata: ["jobs": "\(lost.count)"])
            let queued = lost.filter { open[$0]?.state == .queued }.sorted()
            let dispatched = lost.compactMap { id in open[id].flatMap { $0.state == .dispatched ? CullStore.TakeBackRequest(jobID: id, attempt: $0.attempt) : nil } }
            coordinator.scheduler.enqueue(try await store.jobSpecs(ids: queued))
            await coordinator.takeBack(dispatched.sorted { $0.jobID < $1.jobID }, reason: .workerLost, why: "its dispatch was lost")
            coordinator.dispatchBell.ring()
        }
        for scan in try await store.runningScans() {
            if scan.walkComplete {
                coordinator.checkCompletion([scan.id])
            } else if !coordinator.activeWalks.withLock({ $0.contains(scan.id) }) {
                coordinator.scanStartsContinuation.yield(scan)
            }
        }
        return unknown
    }
}
