import ArgumentParser
import Shared

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancels a running scan; its late results are discarded and it never groups."
    )

    @Argument(help: "The scan id (`cull status` lists them).")
    var scan: Int64

    @OptionGroup var clientOptions: ClientOptions

    func run() async throws {
        try await reportingErrors {
            guard case .cancelReply(let reply) = try await clientOptions.client.request(.cancelRequest(.with { $0.scanID = scan })) else {
                throw CLIError.unexpectedAnswer
            }
            if reply.cancelled {
                print("scan \(scan) cancelled")
            } else {
                throw CLIError("scan \(scan) was not running (it is \(reply.state))")
            }
        }
    }
}
