import ArgumentParser

/// Throughput benchmarks for cull: writes a camera-like photo set and measures the worker's
/// analysis in process. bench/throughput.sh drives it beside `cull run`, djpeg and the peer.
/// `silent-workers` is a crowd of workers that never answer, for fairness rehearsals.
@main
struct CullBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cull-bench",
        abstract: "Generates camera-like photo sets and measures cull's analysis throughput.",
        subcommands: [GenerateCommand.self, AnalyzeCommand.self, SilentWorkersCommand.self]
    )
}
