import ArgumentParser
import Foundation

/// A duration on the command line: "30s", "200ms", "5m", "1h", or a bare number of seconds
/// ("30", "0.5"), so older command lines keep working.
public struct DurationArgument: ExpressibleByArgument, Sendable, Equatable, CustomStringConvertible {
    public let duration: Duration

    public init(_ duration: Duration) { self.duration = duration }

    public init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var scale = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        let milliseconds = (value * scale * 1000).rounded()
        guard milliseconds <= Double(Int64.max) else { return nil }
        duration = .milliseconds(Int64(milliseconds))
    }

    public var description: String { duration.millisecondsDescription }

    /// The duration as a flag takes it back: "30s", "250ms".
    public var argumentText: String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }

    public static var defaultCompletionKind: CompletionKind { .default }
}
