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
}
