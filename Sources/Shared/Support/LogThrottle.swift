import Logging
import Synchronization

/// Lets a burst of one kind of log line through, then holds back the rest until the window
/// passes and says how many were held back: a peer flooding garbage must not flood the journal.
public final class LogThrottle: Sendable {
    private struct State {
        var windowStart: ContinuousClock.Instant = .now
        var logged = 0
        var suppressed = 0
    }

    private let perWindow: Int
    private let window: Duration
    private let state = Mutex(State())

    public init(perWindow: Int = 10, window: Duration = .seconds(60)) {
        self.perWindow = perWindow
        self.window = window
    }

    /// Logs `message` unless this window's quota is spent.
    public func warning(_ logger: Logger, _ message: @autoclosure () -> Logger.Message, metadata: Logger.Metadata = [:]) {
        let now = ContinuousClock.now
        let (allowed, heldBack) = state.withLock { state -> (Bool, Int) in
            var heldBack = 0
            if now - state.windowStart >= window {
                heldBack = state.suppressed
                state = State(windowStart: now)
            }
            guard state.logged < perWindow else {
                state.suppressed += 1
                return (false, heldBack)
            }
            state.logged += 1
            return (true, heldBack)
        }
        if heldBack > 0 { logger.warning("\(heldBack) more like the next were not logged") }
        if allowed { logger.warning(message(), metadata: metadata) }
    }
}
