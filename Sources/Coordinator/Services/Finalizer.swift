import ServiceLifecycle
import Synchronization

/// Scans waiting for a completion check: a set, so asking twice while one check runs costs one
/// more check, never two at once, and the memory is bounded by the number of scans.
final class CompletionChecks: Sendable {
    private let pending = Mutex<Set<Int64>>([])
    private let bell = Doorbell()

    func request(_ scanIDs: Set<Int64>) {
        guard !scanIDs.isEmpty else { return }
        pending.withLock { $0.formUnion(scanIDs) }
        bell.ring()
    }

    func takeAll() -> Set<Int64> {
        pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }

    var requests: AsyncStream<Void> { bell.rings }
}

/// Groups scans whose every photo has an outcome, one at a time, on the grouping queue, and
/// stores the groups only if the scan is still current (rule 4). Its own service, so that a
/// long grouping never holds up storing results, taking jobs back or the reconciliation sweep.
/// On graceful shutdown it stops waiting; a scan left ungrouped is grouped after the restart.
struct Finalizer: Service {
    let coordinator: Coordinator
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        let coordinator = self.coordinator
        await cancelWhenGracefulShutdown {
            for await _ in coordinator.completionChecks.requests {
                for scanID in coordinator.completionChecks.takeAll().sorted() {
                    if Task.isCancelled { return }
                    await coordinator.finalizeIfComplete(scanID)
                }
            }
        }
    }
}
