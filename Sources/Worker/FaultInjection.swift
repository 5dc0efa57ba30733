import Foundation

/// Faults a test can make a real worker process suffer, through CULL_WORKER_FAULTS, to prove
/// the system survives them: `crash=TEXT` aborts the process when it starts a photo whose path
/// contains TEXT (a photo that kills workers); `hang-read=TEXT` makes reading such a photo block
/// forever (a hung mount); `read-delay-ms=N` slows every read (a slow NAS). Comma-separated.
/// Never set in production; a worker logs a warning at start when any is set.
struct FaultInjection: Sendable {
    var crashOn: String?
    var hangReadOn: String?
    var readDelay: Duration = .zero

    static let variable = "CULL_WORKER_FAULTS"

    init(environment: [String: String]) {
        for item in (environment[Self.variable] ?? "").split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "crash": crashOn = parts[1]
            case "hang-read": hangReadOn = parts[1]
            case "read-delay-ms": readDelay = .milliseconds(Int(parts[1]) ?? 0)
            default: continue
            }
        }
    }

    var isActive: Bool { crashOn != nil || hangReadOn != nil || readDelay > .zero }

    /// Runs on the fetch thread, before the real read.
    func beforeRead(_ path: String) {
        if let crashOn, path.contains(crashOn) {
            FileHandle.standardError.write(Data("cull-worker: injected crash on \(path)\n".utf8))
            abort()
        }
        if let hangReadOn, path.contains(hangReadOn) {
            // Like a read stuck in the kernel: this thread never comes back.
            while true { pause() }
        }
        if readDelay > .zero {
            let (seconds, attoseconds) = readDelay.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            nanosleep(&request, nil)
        }
    }
}
