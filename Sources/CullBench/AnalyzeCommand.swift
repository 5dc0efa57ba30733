import Analysis
import ArgumentParser
import Foundation

/// `cull-bench analyze DIR`: photos per second through the code the worker runs, in process:
/// no coordinator, no sockets, no SQLite. The difference to `cull run` is what distribution
/// and storage cost.
struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Measures photos/s through the worker's fetch and analysis, in process.",
        discussion: """
            Mirrors the worker's pipeline: PhotoFetcher.fetch (read + SHA-256) on a fetch queue, \
            PhotoAnalyzer.analyze on a compute queue (Shared's BlockingQueue threads), --jobs \
            photos decoding at once and as many being read ahead. Prints photos/s for each \
            repetition and their median; the last line is always "median X photos/s".
            """
    )

    enum Previews: String, ExpressibleByArgument, CaseIterable {
        case never, auto
    }

    @Argument(help: "Folder of photos (its .jpg/.jpeg files, not its subfolders).")
    var directory: String

    @Option(help: "Photos decoded at once: compute threads (default: the core count).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Photos read and hashed at once (default: --jobs).")
    var fetchThreads: Int?

    @Option(name: .customLong("repeat"), help: "Timed passes over the folder.")
    var repetitions = 5

    @Option(help: "Embedded previews: never, or auto (AnalysisOptions.usePreviews).")
    var previews: Previews = .never

    @Flag(help: "Afterwards, time each stage of one pass on one thread.")
    var breakdown = false

    func validate() throws {
        guard jobs > 0, repetitions > 0, (fetchThreads ?? 1) > 0 else {
            throw ValidationError("--jobs, --fetch-threads and --repeat must be positive")
        }
    }

    func run() async throws {
        let paths = try Self.photos(in: directory)
        guard !paths.isEmpty else { throw ValidationError("no .jpg or .jpeg files in \(directory)") }
        let options = {
            var options = AnalysisOptions()
            options.usePreviews = previews == .auto
            return options
        }()
        let pipeline = InProcessPipeline(fetchThreads: fetchThreads ?? jobs, computeThreads: jobs)

        var rates: [Double] = []
        for repetition in 1...repetitions {
            let started = ContinuousClock.now
            let failures = await pipeline.analyzeAll(paths, options: options)
            let elapsed = (ContinuousClock.now - started).seconds
            guard failures.isEmpty else {
                throw ValidationError("\(failures.count) photos failed; a throughput figure would mislead:\n"
                                      + failures.prefix(5).joined(separator: "\n"))
            }
            rates.append(Double(paths.count) / elapsed)
            print(String(format: "repetition %d: %d photos in %.2f s: %.1f photos/s",
                         repetition, paths.count, elapsed, rates.last!))
        }
        print(String(format: "jobs %d, fetch threads %d, previews %@, %d repetitions",
                     jobs, fetchThreads ?? jobs, previews.rawValue, repetitions))
        print(String(format: "median %.2f photos/s", median(rates)))

        if breakdown {
            // On a compute thread, like the analysis itself: never on the cooperative pool.
            let report = try await pipeline.computeQueue.run {
                var stages = StageBreakdown()
                for path in paths { try stages.measure(path, options: options) }
                return stages.report(jobs: jobs)
            }
            print(report)
        }
    }

    /// The folder's JPEGs by name, so every run and every tool sees the same list.
    static func photos(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .map { "\(directory)/\($0)" }
    }
}

/// The middle value (the mean of the two middle ones for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
