import Metrics
import Prometheus
import Shared

/// A worker's metrics, in Prometheus' text format at `cull-worker --metrics`: how long reads
/// and decodes take (histograms), photos by outcome, and, sampled at each scrape, jobs in hand,
/// photos in flight and stuck reads. Made through swift-metrics' API with a factory of this
/// worker's own (no process-wide bootstrap).
final class WorkerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // A read from a local disk takes a millisecond, from a NAS tens, from a hung mount the
        // fetch timeout (30 s); a decode of a preview about a millisecond, of a 50 MP photo a second.
        let buckets: [Duration] = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30),
        ]
        factory.durationHistogramBuckets["cull_worker_fetch_duration_seconds"] = buckets
        factory.durationHistogramBuckets["cull_worker_analysis_duration_seconds"] = buckets
        self.factory = factory
    }

    func fetched(in duration: Duration) { timer("cull_worker_fetch_duration_seconds").recordNanoseconds(duration.wholeNanoseconds) }
    func analysed(in duration: Duration) { timer("cull_worker_analysis_duration_seconds").recordNanoseconds(duration.wholeNanoseconds) }

    /// One photo's outcome: `analysed`, or its failure kind.
    func finished(_ outcome: Cull_V1_Outcome) {
        CoreMetrics.Counter(label: "cull_worker_photos_total", dimensions: [("outcome", outcome.metricOutcome)], factory: factory).increment()
    }

    func sample(jobs: Int, photosInFlight: Int, stuckReads: Int) {
        gauge("cull_worker_jobs_in_flight").record(jobs)
        gauge("cull_worker_photos_in_flight").record(photosInFlight)
        gauge("cull_worker_stuck_reads").record(stuckReads)
    }

    private func timer(_ name: String) -> CoreMetrics.Timer { CoreMetrics.Timer(label: name, factory: factory) }
    private func gauge(_ name: String) -> CoreMetrics.Gauge { CoreMetrics.Gauge(label: name, factory: factory) }
}
