import ArgumentParser
import Logging

/// Options every daemon shares (`cull serve`, `cull run`'s embedded coordinator, `cull-worker`):
/// logging, the cooperative-pool watchdog and heartbeats.
public struct DaemonOptions: ParsableArguments, Sendable {
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default: $CULL_LOG_LEVEL, else the command's own).")
    public var logLevel: Logger.Level?

    @Option(help: ArgumentHelp(
        "Report a stalled cooperative thread pool after this long (\"2s\", \"250ms\"; 0 turns the watchdog off).",
        discussion: "Default: $CULL_POOL_WATCHDOG_MS milliseconds, else 2s."))
    public var watchdog: DurationArgument?

    @Option(help: "Heartbeat interval, both ways (\"1s\", \"200ms\").")
    public var heartbeat: DurationArgument = DurationArgument(.seconds(1))

    @Option(name: .customLong("heartbeat-ms"), help: .hidden)
    public var heartbeatMilliseconds: Int?

    @Option(help: "Missed heartbeats after which the peer is presumed dead.")
    public var liveness: Int = 5

    public init() {}

    public func validate() throws {
        guard heartbeatInterval >= .milliseconds(10) else { throw ValidationError("--heartbeat must be at least 10ms") }
        guard liveness >= 1 else { throw ValidationError("--liveness must be at least 1") }
    }

    /// The heartbeat interval (`--heartbeat`, or the older `--heartbeat-ms`).
    public var heartbeatInterval: Duration {
        heartbeatMilliseconds.map { .milliseconds($0) } ?? heartbeat.duration
    }

    /// The log level: the flag, else CULL_LOG_LEVEL, else `fallback`.
    public func level(environment: [String: String], default fallback: Logger.Level) -> Logger.Level {
        logLevel ?? LoggingSetup.level(from: environment, default: fallback)
    }

    /// The watchdog threshold; nil when it is off.
    public func watchdogThreshold(environment: [String: String]) -> Duration? {
        let threshold = watchdog?.duration
            ?? environment["CULL_POOL_WATCHDOG_MS"].flatMap(Int64.init).map { Duration.milliseconds($0) }
            ?? .seconds(2)
        return threshold > .zero ? threshold : nil
    }
}

extension DaemonOptions {
    /// Sets up logging at the chosen level and starts the pool watchdog (stop it on exit):
    /// the first thing every daemon does.
    public func startDaemon(label: String, defaultLevel: Logger.Level, environment: [String: String]) -> (Logger, PoolWatchdog?) {
        LoggingSetup.bootstrap(level: level(environment: environment, default: defaultLevel))
        let logger = Logger(label: label)
        return (logger, PoolWatchdog.forDaemon(self, environment: environment, logger: logger))
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    public static var allValueStrings: [String] { Logger.Level.allCases.map(\.rawValue) }
}
