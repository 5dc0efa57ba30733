/// Thrown when something that waits ran past its deadline (rule 3 of DESIGN.md).
public struct TimeoutError: Error, CustomStringConvertible, Sendable, Equatable {
    public let operation: String
    public let timeout: Duration

    public init(operation: String, timeout: Duration) {
        self.operation = operation
        self.timeout = timeout
    }

    public var description: String {
        "\(operation) did not finish within \(timeout.millisecondsDescription)"
    }
}

extension Duration {
    /// "1500 ms", "30 s": for messages people read.
    public var millisecondsDescription: String {
        let ms = Int64(components.seconds) * 1000 + components.attoseconds / 1_000_000_000_000_000
        if ms >= 10_000, ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(ms) ms"
    }

    /// Whole milliseconds, saturating, for wire fields.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? .max : ms + attoseconds / 1_000_000_000_000_000
    }
}
