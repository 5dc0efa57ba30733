import ArgumentParser
import Foundation
import Shared
import SwiftProtobuf

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Shows scans, workers and the daemon's counters."
    )

    @Option(help: "Only this scan.")
    var scan: Int64 = 0

    @Option(help: "How many recent scans.")
    var limit: UInt32 = 20

    @OptionGroup var output: ReportFormatOptions

    @OptionGroup var clientOptions: ClientOptions

    func run() async throws {
        try await reportingErrors {
            let request = Cull_V1_StatusRequest.with { $0.scanID = scan; $0.limit = limit }
            guard case .statusReply(let reply) = try await clientOptions.client.request(.statusRequest(request)) else {
                throw CLIError.unexpectedAnswer
            }
            if output.wantsJSON {
                print(try ReportFormatOptions.json(reply))
                return
            }
            print(Self.render(reply), terminator: "")
        }
    }

    static func render(_ reply: Cull_V1_StatusReply) -> String {
        var out = "SCANS\n"
        if reply.scans.isEmpty { out += "  none yet: `cull scan DIR` starts one\n" }
        out += "  " + ["ID", "STATE", "GEN", "TOTAL", "DONE", "FAILED", "GROUPS", "ROOT"].joined(separator: "\t") + "\n"
        for scan in reply.scans {
            // A running scan shows its phase (walking, analysing, grouping, verifying).
            out += "  " + ["\(scan.scanID)", scan.phase.isEmpty ? scan.state : scan.phase, "\(scan.generation)", "\(scan.total)", "\(scan.done)",
                           "\(scan.failed)", "\(scan.groups)", scan.root].joined(separator: "\t") + "\n"
            if !scan.error.isEmpty, scan.state != "done" { out += "    \(scan.error)\n" }
            if scan.phase == "grouping", !scan.groupingStep.isEmpty {
                let counts = scan.groupingTotal > 0 ? " \(scan.groupingDone)/\(scan.groupingTotal)" : ""
                let what = ["searching": " photos", "judging": " candidate pairs", "neighbours": " neighbour pairs"][scan.groupingStep] ?? ""
                out += "    grouping: \(scan.groupingStep)\(counts)\(what)\n"
            }
        }
        out += "WORKERS\n"
        out += WorkersCommand.render(reply.workers)
        let c = reply.counters
        out += "RESULTS\n  applied \(c.resultsApplied), dropped stale \(c.resultsStale), dropped duplicate \(c.resultsDuplicate), jobs requeued \(c.jobsRequeued), protocol errors \(c.protocolErrors), outcomes refused \(c.outcomesRejected)\n"
        return out
    }
}
