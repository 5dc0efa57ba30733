import Foundation
import Shared

/// The safety net under the event-driven paths: every few seconds SQLite (the truth) and the
/// scheduler (memory) are compared. A job SQLite has open that the scheduler has not held for
/// two sweeps in a row (a write that failed, a race with a departing worker) is taken back
/// and queued again; a running scan whose walk is over gets its completion checked; a running
/// scan with no walk under way and an unfinished walk gets one. Nothing can stay stuck for
/// longer than two sweeps.
extension CoordinatorDaemon {
    func reconcileLoop() async {
        var previouslyUnknown: Set<Int64> = []
        while !stopping.load(ordering: .relaxed) {
            do { try await Task.sleep(for: configuration.reconcileInterval) } catch { return }
            do {
                previouslyUnknown = try await reconcile(previouslyUnknown: previouslyUnknown)
            } catch {
                logger.error("reconciliation sweep failed; retrying", metadata: ["error": "\(describe(error))"])
            }
        }
    }

    /// One sweep; returns the open jobs the scheduler did not hold this time.
    func reconcile(previouslyUnknown: Set<Int64>) async throws -> Set<Int64> {
        let open = try await store.openJobs()
        let known = scheduler.knownJobIDs()
        let unknown = Set(open.keys).subtracting(known)
        let lost = unknown.intersection(previouslyUnknown)
        if !lost.isEmpty {
            logger.warning("recovering jobs the scheduler lost track of", metadata: ["jobs": "\(lost.count)"])
            let queued = lost.filter { open[$0] == "queued" }
            let dispatched = lost.filter { open[$0] == "dispatched" }
            scheduler.enqueue(try await store.jobSpecs(ids: queued.sorted()))
            await takeBack(dispatched.sorted(), reason: .workerLost, why: "its dispatch was lost")
            dispatchBell.ring()
        }
        for scan in try await store.runningScans() {
            if scan.walkComplete {
                await checkCompletion([scan.id])
            } else if !activeWalks.withLock({ $0.contains(scan.id) }) {
                scanStartsContinuation.yield(scan)
            }
        }
        return unknown
    }
}
