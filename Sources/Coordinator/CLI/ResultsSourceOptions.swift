import ArgumentParser
import Foundation
import Shared

/// Where `cull apply` and `cull photos` read a scan's results: `cull run`'s database
/// (`--db`), or a daemon (`--control`).
struct ResultsSourceOptions: ParsableArguments {
    @Option(help: "The database `cull run` kept its results in (ignored with --control).")
    var db: String = RunCommand.defaultDatabase

    @Option(help: "Ask the daemon at this control endpoint instead of reading --db.")
    var control: String?

    @Option(help: "Seconds to wait for the daemon's answer.")
    var timeout: Double = 10

    @OptionGroup var keys: ClientKeyOptions

    /// One request answered by the daemon, or by the database as the daemon would answer it.
    func answer(_ request: Cull_V1_Envelope.OneOf_Command) async throws -> Cull_V1_Envelope.OneOf_Command {
        if let control {
            let client = ControlClient(endpoint: Endpoints.control(control, environment: [:]), timeout: .milliseconds(Int64(timeout * 1000)),
                                       keyFiles: keys.files(environment: ProcessInfo.processInfo.environment))
            return try await client.request(request)
        }
        let store = try await openStore()
        switch request {
        case .groupsRequest(let groups): return .groupsReply(try await store.groupsReply(scanID: groups.scanID))
        case .photosRequest(let photos): return .photosReply(try await store.photosPage(photos))
        default: throw CLIError.unexpectedAnswer
        }
    }

    private func openStore() async throws -> CullStore {
        let path = absolutePath(db)
        // A stat of a file that may sit on a hung mount: its own thread, like the store's opening.
        guard try await onOwnThread({ FileManager.default.fileExists(atPath: path) }) else {
            throw CLIError("no results in \(path): run `cull run DIR` first (or give --db, or --control to ask a daemon)")
        }
        return try await CullStore.open(path: path, on: BlockingQueue(label: "cull.results", limit: 1))
    }
}
