extension Cull_V1_Outcome {
    /// What the `outcome` label of a photo counter says of it: `analysed`, or its failure kind.
    public var metricOutcome: String {
        switch result {
        case .features: "analysed"
        case .failure(let failure): failure.kind.storageName
        case nil: "empty"
        }
    }
}

extension Duration {
    /// Whole nanoseconds, as swift-metrics' timers take them.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
