import Foundation
import Logging

/// One logging setup for every cull process: plain lines on standard error, so systemd's
/// journal (or a terminal) gets them with no extra configuration.
public enum LoggingSetup {
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// Reads CULL_LOG_LEVEL (trace, debug, info, notice, warning, error, critical).
    public static func level(from environment: [String: String], default fallback: Logger.Level) -> Logger.Level {
        environment["CULL_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? fallback
    }
}
