import Foundation

/// Default ZeroMQ endpoints of a `cull serve` daemon, and how clients find it.
public enum Endpoints {
    /// Where workers connect. Overridden by `cull serve --work` and `cull-worker --connect`.
    public static let defaultWork = "tcp://127.0.0.1:5555"
    /// The system daemon's control socket (`cull serve` run as root, as deploy/cull.service
    /// does): a Unix socket whose file permissions (0660, group `cull`) decide who may use it.
    public static let systemControl = "ipc:///run/cull/control"

    /// A user's own daemon's control socket: in $XDG_RUNTIME_DIR/cull (or /tmp/cull-UID),
    /// a folder only that user may enter.
    public static func userControl(environment: [String: String], uid: UInt32 = getuid()) -> String {
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }.map { $0 + "/cull" } ?? "/tmp/cull-\(uid)"
        return "ipc://" + base + "/control"
    }

    /// Where `cull serve` listens for `cull` commands without --control: $CULL_CONTROL, else the
    /// system socket for root, else the user's.
    public static func serveControl(environment: [String: String], uid: UInt32 = getuid()) -> String {
        if let configured = environment["CULL_CONTROL"], !configured.isEmpty { return configured }
        return uid == 0 ? systemControl : userControl(environment: environment, uid: uid)
    }

    /// Where `cull scan|status|cancel|groups|workers|photos|apply` connect: --control, else
    /// $CULL_CONTROL, else the system daemon's socket if it exists (a member of group `cull`
    /// reaches it), else the user's own daemon's.
    public static func control(_ flag: String?, environment: [String: String], uid: UInt32 = getuid(),
                               exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        if let flag { return flag }
        if let configured = environment["CULL_CONTROL"], !configured.isEmpty { return configured }
        if uid == 0 || exists(String(systemControl.dropFirst("ipc://".count))) { return systemControl }
        return userControl(environment: environment, uid: uid)
    }

    /// How the default control endpoint is found, for help texts.
    public static let controlDefaultDescription =
        "$CULL_CONTROL, else \(systemControl) if it exists (the system daemon), else ipc://$XDG_RUNTIME_DIR/cull/control"

    /// Whether an endpoint can only be reached from this machine: ipc:// and inproc://, or
    /// tcp:// on a loopback address (127.0.0.0/8, ::1, localhost).
    public static func isLocal(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
        var host = String(endpoint.dropFirst("tcp://".count))
        // tcp://[::1]:5555, tcp://127.0.0.1:5555, tcp://localhost:5555 (a source;address form is not local)
        if host.contains(";") { return false }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
