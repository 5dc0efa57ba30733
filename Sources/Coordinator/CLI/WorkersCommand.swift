import ArgumentParser
import Foundation
import Shared

struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "Lists the workers connected to the daemon."
    )

    @OptionGroup var output: ReportFormatOptions
    @OptionGroup var clientOptions: ClientOptions

    func run() async throws {
        try await reportingErrors {
            guard case .statusReply(let reply) = try await clientOptions.client.request(.statusRequest(.with { $0.limit = 1 })) else {
                throw CLIError.unexpectedAnswer
            }
            if output.wantsJSON {
                // The same message as `cull status --format json`, with the workers only.
                print(try ReportFormatOptions.json(.with { $0.workers = reply.workers }))
                return
            }
            print(Self.render(reply.workers), terminator: "")
        }
    }

    static func render(_ workers: [Cull_V1_WorkerStatus]) -> String {
        guard !workers.isEmpty else { return "  none connected: start `cull-worker --connect ENDPOINT`\n" }
        var out = "  " + ["ID", "HOST", "KEY", "VERSION", "JOBS", "CREDIT", "CAPACITY", "PHOTOS", "PHOTOS/S", "STUCK", "SEEN"].joined(separator: "\t") + "\n"
        for w in workers {
            // Credit is earned up to the capacity; a worker that missed deadlines says so.
            let credit = w.quarantineSeconds > 0 ? String(format: "0 (quarantined %.0fs, %d missed)", w.quarantineSeconds.rounded(.up), w.missedDeadlines)
                : w.missedDeadlines > 0 ? "\(w.credit) (\(w.missedDeadlines) missed)" : "\(w.credit)"
            // KEY: the name of the key it authenticated with (CURVE), "-" on a plain endpoint.
            out += "  " + [w.workerID, w.host, w.keyName.isEmpty ? "-" : w.keyName, w.softwareVersion, "\(w.inFlightJobs)", credit, "\(w.capacity)", "\(w.photosDone)",
                           String(format: "%.1f", w.photosPerSecond), "\(w.abandonedFetches)", String(format: "%.1fs ago", w.lastSeenSecondsAgo)].joined(separator: "\t") + "\n"
        }
        return out
    }
}
