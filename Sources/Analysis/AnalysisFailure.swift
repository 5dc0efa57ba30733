/// Why one photo could not be analysed. `kind` maps one to one onto the wire's FailureKind.
public struct AnalysisFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case unsupported, corrupt, tooLarge = "too_large", unreadable, timeout
        case workerLost = "worker_lost", `internal`
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
