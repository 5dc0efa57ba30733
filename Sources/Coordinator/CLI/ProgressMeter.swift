import Foundation
import Shared

/// Where a scan is, as the progress display reads it (from `cull run`'s own coordinator or a
/// daemon's status reply).
struct ScanProgress: Sendable, Equatable {
    var scanID: Int64
    /// walking, analysing, verifying, grouping; or the end state (done, failed, …).
    var phase: String
    var done: Int64
    var total: Int64
    var failed: Int64
    var verifying: Int64 = 0
    /// While grouping: the step (searching, judging, listing) and its counts.
    var grouping: GroupingProgress.Snapshot?

    init(scanID: Int64, phase: String, done: Int64, total: Int64, failed: Int64, verifying: Int64 = 0,
         grouping: GroupingProgress.Snapshot? = nil) {
        self.scanID = scanID
        self.phase = phase
        self.done = done
        self.total = total
        self.failed = failed
        self.verifying = verifying
        self.grouping = grouping
    }

    init(_ scan: ScanRecord, grouping: GroupingProgress.Snapshot? = nil) {
        self.init(scanID: scan.id, phase: scan.phase?.rawValue ?? scan.state.rawValue, done: scan.done, total: scan.total,
                  failed: scan.failed, verifying: scan.verifying, grouping: grouping)
    }

    init(_ scan: Cull_V1_ScanStatus) {
        let step = GroupingProgress.Step(name: scan.groupingStep)
        self.init(scanID: scan.scanID, phase: scan.phase.isEmpty ? scan.state : scan.phase, done: scan.done, total: scan.total,
                  failed: scan.failed, verifying: scan.verifying,
                  grouping: step.map { .init(step: $0, done: Int(scan.groupingDone), total: Int(scan.groupingTotal)) })
    }
}

/// Progress a person can read (issue 10, point 5), as a value: fed the scan as often as it is
/// looked at, it says what to show and when. On a terminal a bar rewritten in place at most
/// five times a second: phase, done/total, photos/s, elapsed, ETA, failures. Piped, the same
/// words as a plain line every `plainInterval`, and whenever the phase changes.
struct ProgressMeter: Sendable {
    let terminal: Bool
    let started: ContinuousClock.Instant
    static let terminalInterval: Duration = .milliseconds(200)
    static let plainInterval: Duration = .seconds(5)
    /// The rate is measured over about this long (recent speed, not the average since a walk
    /// that found nothing to analyse for minutes).
    static let rateWindow: Duration = .seconds(20)
    static let barWidth = 24

    private var samples: [(at: ContinuousClock.Instant, done: Int64)] = []
    private var lastShown: ContinuousClock.Instant?
    private var lastPhase: String?

    init(terminal: Bool, started: ContinuousClock.Instant = .now) {
        self.terminal = terminal
        self.started = started
    }

    /// The text to write now for `progress` at `now`, or nil when nothing is due. On a
    /// terminal it starts with a carriage return and a clear-line escape.
    mutating func update(_ progress: ScanProgress, now: ContinuousClock.Instant = .now) -> String? {
        samples.append((now, progress.done))
        samples.removeAll { now - $0.at > Self.rateWindow }  // never the one just added
        let phaseChanged = progress.phase != lastPhase
        let interval = terminal ? Self.terminalInterval : Self.plainInterval
        guard phaseChanged || lastShown.map({ now - $0 >= interval }) ?? true else { return nil }
        lastShown = now
        lastPhase = progress.phase
        let line = describe(progress, now: now)
        return terminal ? "\r\u{1B}[K" + line : line + "\n"
    }

    /// Photos per second over the recent samples; nil until there are two apart in time.
    func rate(now: ContinuousClock.Instant) -> Double? {
        guard let first = samples.first, let last = samples.last, last.at > first.at else { return nil }
        let seconds = Self.seconds(last.at - first.at)
        return seconds > 0.5 ? Double(last.done - first.done) / seconds : nil
    }

    func describe(_ progress: ScanProgress, now: ContinuousClock.Instant) -> String {
        let elapsed = Self.clock(Self.seconds(now - started))
        var parts: [String] = []
        switch progress.phase {
        case "grouping":
            parts.append("scan \(progress.scanID) grouping \(progress.total - progress.failed) photos")
            switch progress.grouping {
            case let grouping? where grouping.step == .searching:
                parts.append("searching \(Self.share(grouping)) photos")
            case let grouping? where grouping.step == .judging:
                parts.append("judging \(Self.share(grouping)) candidate pairs")
            case let grouping? where grouping.step == .neighbours:
                parts.append("comparing \(Self.share(grouping)) neighbours for other shots")
            case let grouping? where grouping.step == .listing:
                parts.append("listing the groups")
            default:
                break
            }
            parts.append("\(elapsed) elapsed")
        case "walking", "analysing", "verifying":
            let fraction = progress.total > 0 ? min(1, Double(progress.done) / Double(progress.total)) : 0
            let filled = Int((fraction * Double(Self.barWidth)).rounded(.down))
            let bar = terminal ? "▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: Self.barWidth - filled) + "▏ "
                               : String(format: "%.0f%% ", fraction * 100)
            let walking = progress.phase == "walking" ? "+" : ""  // the total still grows
            parts.append("scan \(progress.scanID) \(progress.phase) \(bar)\(progress.done)/\(progress.total)\(walking) photos")
            let rate = rate(now: now)
            if let rate { parts.append(String(format: rate >= 10 ? "%.0f/s" : "%.1f/s", rate)) }
            parts.append("\(elapsed) elapsed")
            // An ETA only once the walk has found everything: before, the total is not known.
            if progress.phase != "walking", let rate, rate > 0 {
                parts.append("ETA " + Self.clock(Double(max(0, progress.total - progress.done)) / rate))
            }
            if progress.verifying > 0 { parts.append("\(progress.verifying) checked again from their main image") }
        default:
            parts.append("scan \(progress.scanID) \(progress.phase): \(progress.done)/\(progress.total) photos")
            parts.append("\(elapsed) elapsed")
        }
        if progress.failed > 0 { parts.append("\(progress.failed) failed") }
        return parts.joined(separator: " · ")
    }

    /// "420,000/1,000,000 (42%)".
    static func share(_ grouping: GroupingProgress.Snapshot) -> String {
        let percent = grouping.total > 0 ? " (\(grouping.done * 100 / grouping.total)%)" : ""
        return "\(grouping.done.formatted(.number.grouping(.automatic)))/\(grouping.total.formatted(.number.grouping(.automatic)))\(percent)"
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// 0:07, 12:34, 1:02:03.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let h = total / 3600, m = total / 60 % 60, s = total % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
