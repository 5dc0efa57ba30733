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

    @Option(help: "Output: table, csv (group,kind,path,keeper,distance) or json.")
    var format: OutputFormat = .table

    @OptionGroup var clientOptions: ClientOptions

    func run() async throws {
        try await reportingErrors {
            guard case .groupsReply(let reply) = try await clientOptions.client.request(.groupsRequest(.with { $0.scanID = scan })) else {
                throw CLIError.unexpectedAnswer
            }
            guard reply.scanState == "done" else {
                throw CLIError("scan \(reply.scanID) is \(reply.scanState): it has no groups (only finished scans group); `cull status` lists the scans")
            }
            FileHandle.standardOutput.write(Data(GroupsFormatter.render(reply.groups, format: format).utf8))
        }
    }
}
