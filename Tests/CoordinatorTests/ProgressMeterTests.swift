@testable import Coordinator
import Shared
import Testing

/// The progress display as a value: fed scans at chosen instants, it says what and when.
@Suite("Progress meter")
struct ProgressMeterTests {
    let start = ContinuousClock.now

    func scan(_ phase: String, done: Int64, total: Int64, failed: Int64 = 0) -> ScanProgress {
        ScanProgress(scanID: 7, phase: phase, done: done, total: total, failed: failed)
    }

    @Test("on a terminal: a bar rewritten in place with phase, counts, rate, elapsed, ETA and failures, at most 5 times a second")
    func terminal() {
        var meter = ProgressMeter(terminal: true, started: start)
        let first = meter.update(scan("analysing", done: 0, total: 1000), now: start)
        #expect(first?.hasPrefix("\r\u{1B}[K") == true)
        let soon = meter.update(scan("analysing", done: 10, total: 1000), now: start + .milliseconds(100))
        #expect(soon == nil, "too soon")
        let text = meter.update(scan("analysing", done: 500, total: 1000, failed: 3), now: start + .seconds(10))
        // 500 photos in 10 s: 50/s; 500 to go: 10 s.
        #expect(text == "\r\u{1B}[Kscan 7 analysing ▕████████████░░░░░░░░░░░░▏ 500/1000 photos · 50/s · 0:10 elapsed · ETA 0:10 · 3 failed")
    }

    @Test("piped: a plain line every 5 seconds and at every change of phase; no ETA while the walk still finds files")
    func piped() {
        var meter = ProgressMeter(terminal: false, started: start)
        let first = meter.update(scan("walking", done: 0, total: 40), now: start)
        #expect(first == "scan 7 walking 0% 0/40+ photos · 0:00 elapsed\n")
        let soon = meter.update(scan("walking", done: 20, total: 80), now: start + .seconds(2))
        #expect(soon == nil)
        let walking = meter.update(scan("walking", done: 50, total: 100), now: start + .seconds(5))
        #expect(walking == "scan 7 walking 50% 50/100+ photos · 10/s · 0:05 elapsed\n")
        let grouping = meter.update(scan("grouping", done: 100, total: 100, failed: 2), now: start + .seconds(6))
        #expect(grouping == "scan 7 grouping 98 photos · 0:06 elapsed · 2 failed\n", "a new phase shows at once")
    }

    @Test("grouping shows its step and counts, from the coordinator's board or a daemon's status reply")
    func groupingSteps() {
        var meter = ProgressMeter(terminal: false, started: start)
        var progress = scan("grouping", done: 1_000_000, total: 1_000_000)
        progress.grouping = .init(step: .searching, done: 420_000, total: 1_000_000)
        #expect(meter.update(progress, now: start + .seconds(75)) == "scan 7 grouping 1000000 photos · searching 420,000/1,000,000 (42%) photos · 1:15 elapsed\n")
        var status = Cull_V1_ScanStatus()
        status.scanID = 7
        status.state = "running"
        status.phase = "grouping"
        status.total = 1_000_000
        status.done = 1_000_000
        status.groupingStep = "judging"
        status.groupingDone = 1_500_000
        status.groupingTotal = 4_612_460
        #expect(meter.update(ScanProgress(status), now: start + .seconds(77)) == nil, "the same phase: not before 5 s")
        #expect(meter.update(ScanProgress(status), now: start + .seconds(95))
                == "scan 7 grouping 1000000 photos · judging 1,500,000/4,612,460 (32%) candidate pairs · 1:35 elapsed\n")
        status.groupingStep = "neighbours"
        status.groupingDone = 200_000
        status.groupingTotal = 670_871
        #expect(meter.update(ScanProgress(status), now: start + .seconds(101))
                == "scan 7 grouping 1000000 photos · comparing 200,000/670,871 (29%) neighbours for other shots · 1:41 elapsed\n")
        status.groupingStep = "listing"
        status.groupingDone = 0
        status.groupingTotal = 0
        #expect(ScanProgress(status).grouping == .init(step: .listing, done: 0, total: 0))
    }

    @Test("the rate is recent: a walk that found nothing for minutes does not drag it down")
    func recentRate() {
        var meter = ProgressMeter(terminal: false, started: start)
        _ = meter.update(scan("walking", done: 0, total: 0), now: start)
        _ = meter.update(scan("analysing", done: 0, total: 100), now: start + .seconds(300))
        _ = meter.update(scan("analysing", done: 40, total: 100), now: start + .seconds(310))
        #expect(meter.rate(now: start + .seconds(310)) == 4)
        #expect(ProgressMeter.clock(3723) == "1:02:03" && ProgressMeter.clock(7) == "0:07")
    }
}
