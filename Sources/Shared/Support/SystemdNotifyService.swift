import CSystemd
import Foundation
import Logging
import ServiceLifecycle

/// Tells systemd how a daemon is doing (sd_notify(3), for `Type=notify` units): READY=1 once its
/// services run, STATUS= with a line of progress every `statusInterval`, WATCHDOG=1 at half the
/// unit's `WatchdogSec` (from the cooperative pool: a stalled pool misses it and systemd
/// restarts the daemon), and STOPPING=1 when it shuts down. Outside systemd (no
/// NOTIFY_SOCKET) it only waits for shutdown.
///
/// sd_notify sends a datagram to systemd's socket, which could block if systemd stopped reading:
/// each call runs on a queue of its own under a one-second deadline (rules 1 and 3).
public struct SystemdNotifyService: Service {
    let status: @Sendable () -> String
    let statusInterval: Duration
    let logger: Logger
    private let queue = BlockingQueue(label: "cull.sd-notify", limit: 1, maxStuckThreads: 2)

    /// `status` says what the daemon is doing, in one line (`systemctl status` shows it).
    public init(statusInterval: Duration = .seconds(5), logger: Logger, status: @escaping @Sendable () -> String) {
        self.status = status
        self.statusInterval = statusInterval
        self.logger = logger
    }

    /// Whether systemd listens (NOTIFY_SOCKET is set).
    public static var isUnderSystemd: Bool { ProcessInfo.processInfo.environment["NOTIFY_SOCKET"].map { !$0.isEmpty } ?? false }

    /// The unit's watchdog interval (WatchdogSec, passed as WATCHDOG_USEC), if it has one for
    /// this process.
    public static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    public func run() async throws {
        guard Self.isUnderSystemd else {
            try? await gracefulShutdown()
            return
        }
        let watchdog = Self.watchdogInterval
        await notify("READY=1\nSTATUS=\(status())")
        let statusInterval = self.statusInterval, status = self.status
        let tick = watchdog.map { min($0 / 2, statusInterval) } ?? statusInterval
        try? await cancelWhenGracefulShutdown {
            var sinceStatus = Duration.zero
            while !Task.isCancelled {
                try await Task.sleep(for: tick)
                sinceStatus += tick
                var message = watchdog == nil ? "" : "WATCHDOG=1"
                if sinceStatus >= statusInterval {
                    sinceStatus = .zero
                    message += (message.isEmpty ? "" : "\n") + "STATUS=\(status())"
                }
                if !message.isEmpty { await notify(message) }
            }
        }
        await notify("STOPPING=1\nSTATUS=stopping")
    }

    private func notify(_ message: String) async {
        do {
            let sent = try await queue.run(timeout: .seconds(1), operation: "sd_notify") { sd_notify(0, message) }
            if sent < 0 { logger.warning("sd_notify failed", metadata: ["error": "\(sent)"]) }
        } catch {
            logger.warning("sd_notify did not return in time: systemd may not hear from this daemon", metadata: ["error": "\(error)"])
        }
    }
}
