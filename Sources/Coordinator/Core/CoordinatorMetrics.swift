import Metrics
import Prometheus
import Shared
import Synchronization

/// The coordinator's metrics, in Prometheus' text format at `cull serve --metrics`
/// (docs/FEATURES.md lists them). Made through swift-metrics' API with a factory of this
/// coordinator's own (no process-wide bootstrap: tests run several coordinators in one process).
///
/// Events are counted where they happen (outcomes received, groupings finished). What the
/// scheduler already counts for `cull status` (`Cull_V1_Counters`, each worker's photos) is
/// carried over at each scrape as the increase since the last one, so the two never disagree;
/// queue depths and each worker's jobs in flight are gauges sampled at the scrape.
final class CoordinatorMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    private struct Sampled {
        var counters = Cull_V1_Counters()
        var photosByWorker: [String: UInt64] = [:]
    }
    private let sampled = Mutex(Sampled())

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Grouping takes milliseconds for a folder and about a minute for a million photos.
        factory.durationHistogramBuckets["cull_grouping_duration_seconds"] = [
            .milliseconds(10), .milliseconds(100), .seconds(1), .seconds(5), .seconds(15), .seconds(30), .seconds(60),
            .seconds(120), .seconds(300), .seconds(900), .seconds(3600),
        ]
        self.factory = factory
    }

    private func counter(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory)
    }

    private func gauge(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: name, dimensions: dimensions, factory: factory)
    }

    /// The outcomes of a result the scheduler admitted: `cull_photos_total{outcome}`, where
    /// outcome is `analysed` or the failure kind (`corrupt`, `unreadable`, `timeout`, ...).
    func received(_ outcomes: [Cull_V1_Outcome]) {
        var counts: [String: Int] = [:]
        for outcome in outcomes { counts[outcome.metricOutcome, default: 0] += 1 }
        for (outcome, count) in counts { counter("cull_photos_total", [("outcome", outcome)]).increment(by: count) }
    }

    func groupingFinished(after duration: Duration) {
        CoreMetrics.Timer(label: "cull_grouping_duration_seconds", factory: factory).recordNanoseconds(duration.wholeNanoseconds)
    }

    /// Brings the sampled metrics up to date; runs just before each scrape.
    func sample(scheduler: Scheduler, bufferedResults: Int) {
        let counters = scheduler.counters
        let workers = scheduler.workers()
        gauge("cull_jobs_queued").record(scheduler.queuedCount)
        gauge("cull_jobs_in_flight").record(scheduler.inFlightCount)
        gauge("cull_results_buffered").record(bufferedResults)
        gauge("cull_workers").record(workers.count)
        sampled.withLock { last in
            func carry(_ name: String, _ dimensions: [(String, String)], _ now: UInt64, _ before: UInt64) {
                if now > before { counter(name, dimensions).increment(by: now - before) }
            }
            carry("cull_results_applied_total", [], counters.resultsApplied, last.counters.resultsApplied)
            carry("cull_results_dropped_total", [("reason", "stale")], counters.resultsStale, last.counters.resultsStale)
            carry("cull_results_dropped_total", [("reason", "duplicate")], counters.resultsDuplicate, last.counters.resultsDuplicate)
            carry("cull_results_dropped_total", [("reason", "outcome_rejected")], counters.outcomesRejected, last.counters.outcomesRejected)
            carry("cull_protocol_errors_total", [], counters.protocolErrors, last.counters.protocolErrors)
            carry("cull_jobs_requeued_total", [], counters.jobsRequeued, last.counters.jobsRequeued)
            last.counters = counters
            var seen: [String: UInt64] = [:]
            for worker in workers {
                gauge("cull_jobs_in_flight_by_worker", [("worker", worker.id)]).record(worker.jobs.count)
                // A worker that said HELLO again counts from zero again.
                let before = last.photosByWorker[worker.id] ?? 0
                carry("cull_photos_by_worker_total", [("worker", worker.id)], worker.photosDone, worker.photosDone >= before ? before : 0)
                seen[worker.id] = worker.photosDone
            }
            // A worker that left takes its series with it: default worker ids are host:pid:random,
            // so a long-lived coordinator would otherwise collect one per worker restart.
            for gone in last.photosByWorker.keys where seen[gone] == nil {
                gauge("cull_jobs_in_flight_by_worker", [("worker", gone)]).destroy()
                counter("cull_photos_by_worker_total", [("worker", gone)]).destroy()
            }
            last.photosByWorker = seen
        }
    }
}
