import ArgumentParser
import Foundation
import GRDB
import Logging
import Shared
import SwiftProtobuf

/// Options every client command shares.
struct ClientOptions: ParsableArguments {
    @Option(help: "The daemon's control endpoint (default: \(Endpoints.controlDefaultDescription)).")
    var control: String?

    @Option(help: "Seconds to wait for the daemon's answer.")
    var timeout: Double = 10

    @OptionGroup var keys: ClientKeyOptions

    var client: ControlClient {
        let environment = ProcessInfo.processInfo.environment
        return ControlClient(endpoint: Endpoints.control(control, environment: environment),
                             timeout: .milliseconds(Int64(timeout * 1000)), keyFiles: keys.files(environment: environment))
    }
}

/// A client's CURVE keys, for a daemon whose control endpoint other machines reach.
struct ClientKeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "This client's secret key (`cull keygen`; default: $CULL_KEY), for a daemon whose control endpoint other machines reach: it speaks CURVE, and its --authorized folder must hold this key's .public file.",
        valueName: "file"))
    var key: String?

    @Option(name: .customLong("server-key"), help: ArgumentHelp("The daemon's public key (default: $CULL_SERVER_KEY), with --key.", valueName: "file"))
    var serverKey: String?

    func files(environment: [String: String]) -> (secret: String?, server: String?) {
        let nonEmpty = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        return (key ?? nonEmpty("CULL_KEY"), serverKey ?? nonEmpty("CULL_SERVER_KEY"))
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, json, html

    /// `--format CSV` works as well as `--format csv`.
    init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// `--format` of the reports that are not group listings (`cull status`, `cull workers`): the
/// same flag and words as the group listings', so scripts write `--format json` everywhere.
/// `--json`, the older spelling, stays as a hidden alias.
struct ReportFormatOptions: ParsableArguments {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
        init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    }

    @Option(help: "Output: table (for people) or json (the StatusReply message of docs/PROTOCOL.md).")
    var format: Format = .table

    @Flag(help: .hidden)
    var json = false

    var wantsJSON: Bool { json || format == .json }

    /// The status reply as JSON, 64-bit numbers as numbers.
    static func json(_ reply: Cull_V1_StatusReply) throws -> String {
        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        return try reply.jsonString(options: options)
    }
}

/// The folder argument of `cull run` and `cull scan`: an empty one is refused rather than
/// taken for the current directory (`cull run ""` from a script whose variable was unset).
func checkFolderArgument(_ directory: String) throws {
    if directory.trimmingCharacters(in: .whitespaces).isEmpty {
        throw ValidationError("no folder given (the argument is empty): name the folder to scan, for example `cull run ~/Pictures`")
    }
}

/// Runs a command body, printing `CLIError`s and store errors plainly with exit status 1.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CLIError {
        printError(error.description)
        throw ExitCode.failure
    } catch let error as ActionError {
        printError(error.description)
        throw ExitCode.failure
    } catch let error as StoreError {
        printError(error.description)
        throw ExitCode.failure
    } catch let error as CoordinatorError {
        printError(error.description)
        throw ExitCode.failure
    } catch let error as DatabaseError {
        printError(error.describe(path: "the database"))
        throw ExitCode.failure
    } catch let error as ZMQError {
        printError("ZeroMQ: \(error.description)")
        throw ExitCode.failure
    } catch let error as TimeoutError {
        printError("\(error.description); the disk or network mount may be hung")
        throw ExitCode.failure
    } catch let error as MetricsEndpointError {
        printError(error.description)
        throw ExitCode.failure
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("cull: \(message)\n".utf8))
}

func absolutePath(_ path: String) -> String {
    let expanded = (path as NSString).expandingTildeInPath
    if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
    let cwd = FileManager.default.currentDirectoryPath
    return ((cwd as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
}

var standardErrorIsTerminal: Bool { isatty(2) == 1 }
