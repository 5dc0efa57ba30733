extension Cull_V1_FailureKind {
    /// The name stored in SQLite and shown to users ("too_large").
    public var storageName: String {
        switch self {
        case .unsupported: "unsupported"
        case .corrupt: "corrupt"
        case .tooLarge: "too_large"
        case .unreadable: "unreadable"
        case .timeout: "timeout"
        case .workerLost: "worker_lost"
        case .internal: "internal"
        case .unspecified, .UNRECOGNIZED: "unknown"
        }
    }

    public init(storageName: String) {
        self = Self.allCases.first { $0.storageName == storageName } ?? .internal
    }
}
