/// Default ZeroMQ endpoints of a `cull serve` daemon, and how clients find it.
public enum Endpoints {
    /// Where workers connect. Overridden by `cull serve --work` and `cull-worker --connect`.
    public static let defaultWork = "tcp://127.0.0.1:5555"
    /// Where `cull scan|status|cancel|groups|workers` connect. Overridden by `--control`
    /// or the CULL_CONTROL environment variable.
    public static let defaultControl = "tcp://127.0.0.1:5556"

    public static func control(_ flag: String?, environment: [String: String]) -> String {
        flag ?? environment["CULL_CONTROL"] ?? defaultControl
    }

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
