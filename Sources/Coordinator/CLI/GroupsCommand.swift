import ArgumentParser
import Foundation
import Shared

struct GroupsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groups",
        abstract: "Prints the duplicate groups of a finished scan."
    )

    @Option(help: "The scan (default: the latest finished one).")
    var scan: Int64 = 0

    @Option(help: "Output: table, csv (group,kind,path,keeper,distance, then more columns), json, or html (a page with thumbnails to review in a browser: `> review.html`).")
    var format: OutputFormat = .table

    @OptionGroup var pairsOptions: PairsOptions
    @OptionGroup var clientOptions: ClientOptions

    func run() async throws {
        try await reportingErrors {
            guard case .groupsReply(let reply) = try await clientOptions.client.request(.groupsRequest(.with { $0.scanID = scan })) else {
                throw CLIError.unexpectedAnswer
            }
            guard reply.scanState == "done" else {
                throw CLIError("scan \(reply.scanID) is \(reply.scanState): it has no groups (only finished scans group); `cull status` lists the scans")
            }
            let text = try await GroupsFormatter.output(pairsOptions.pairs.applied(to: reply.groups), format: format, root: reply.root, scanID: reply.scanID)
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
