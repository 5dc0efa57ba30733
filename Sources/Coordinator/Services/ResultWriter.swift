import ServiceLifecycle
import Shared

/// Stores results in batches: everything that arrived since the last write goes into one
/// transaction, fenced (rule 4). On graceful shutdown it stores what it holds, then stops;
/// it is the last service to stop, after the work channel stopped accepting results.
struct ResultWriter: Service {
    let coordinator: Coordinator
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        let results = coordinator.results
        await withGracefulShutdownHandler {
            for await _ in results.arrivals {
                await writeBatch()
            }
            await writeBatch()
        } onGracefulShutdown: {
            results.close()
        }
    }

    private func writeBatch() async {
        let batch = coordinator.results.takeAll()
        guard !batch.isEmpty else { return }
        let coordinator = self.coordinator
        defer {
            coordinator.scheduler.stored(jobIDs: batch.map(\.result.jobID))
            coordinator.dispatchBell.ring()
        }
        do {
            let tally = try await coordinator.store.applyResults(batch)
            coordinator.scheduler.count { counters in
                counters.resultsApplied += UInt64(tally.applied)
                counters.resultsStale += UInt64(tally.stale)
                counters.resultsDuplicate += UInt64(tally.duplicate)
                counters.outcomesRejected += UInt64(tally.rejectedOutcomes)
            }
            if tally.rejectedOutcomes > 0 {
                coordinator.logger.warning("refused outcomes a worker sent (not the job's photo, malformed features, or a kind only the coordinator sets)",
                                           metadata: ["outcomes": "\(tally.rejectedOutcomes)", "workers": "\(tally.rejectingWorkers.sorted())"])
            }
            if tally.stale + tally.duplicate > 0 {
                coordinator.logger.info("dropped results that no longer match", metadata: ["stale": "\(tally.stale)", "duplicate": "\(tally.duplicate)"])
            }
            coordinator.checkCompletion(tally.scansToCheck)
        } catch {
            // Not lost for good: their jobs are still dispatched in SQLite; taken back now, they
            // are dispatched again with new attempts.
            coordinator.logger.error("could not store results; their jobs will be retried", metadata: ["error": "\(coordinator.describe(error))"])
            await coordinator.takeBack(batch.map { .init(jobID: $0.result.jobID, attempt: $0.result.attempt) },
                                       reason: .workerLost, why: "its result could not be stored")
        }
    }
}
