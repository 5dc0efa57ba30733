import Foundation

/// Pauses a test can put into a real `cull apply` through CULL_APPLY_FAULTS, to kill it at a
/// chosen point and prove `cull undo` loses nothing: `move-delay-ms=N` after every move,
/// `copy-delay-ms=N` after a copy across file systems is written and before it is checked and
/// takes its name. Comma-separated. Never set in production; apply says so when one is.
struct ActionFaults: Sendable {
    var moveDelay: Duration = .zero
    var copyDelay: Duration = .zero

    static let variable = "CULL_APPLY_FAULTS"

    init() {}

    init(environment: [String: String]) {
        for item in (environment[Self.variable] ?? "").split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let milliseconds = Int(parts[1]) else { continue }
            switch parts[0] {
            case "move-delay-ms": moveDelay = .milliseconds(milliseconds)
            case "copy-delay-ms": copyDelay = .milliseconds(milliseconds)
            default: continue
            }
        }
    }

    var isActive: Bool { moveDelay > .zero || copyDelay > .zero }

    /// Sleeps the calling thread: apply runs on a thread of its own, never the cooperative pool.
    func pause(_ duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }
}
