import ArgumentParser
import Foundation
import Shared
import UnixSignals

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Asks the daemon to scan a folder (superseding a running scan of it).",
        discussion: "The folder must exist at the same path on the coordinator and its workers."
    )

    @Argument(help: "The folder to scan.")
    var directory: String

    @Flag(help: "Wait until the scan ends, showing progress; exit 0 only if it finished.")
    var wait = false

    @OptionGroup var keeperOptions: KeeperOptions
    @OptionGroup var filterOptions: WalkFilterOptions
    @OptionGroup var clientOptions: ClientOptions

    func validate() throws { try checkFolderArgument(directory) }

    func run() async throws {
        try await reportingErrors {
            let client = clientOptions.client
            let prefer = try keeperOptions.preferredRules(), references = keeperOptions.referenceFolders
            let request = Cull_V1_ScanRequest.with {
                $0.root = absolutePath(directory)
                $0.prefer = prefer
                $0.referenceFolders = references
                $0.include = filterOptions.include
                $0.exclude = filterOptions.exclude
                $0.noDefaultSkips = filterOptions.noDefaultSkips
            }
            guard case .scanStarted(let started) = try await client.request(.scanRequest(request)) else {
                throw CLIError.unexpectedAnswer
            }
            if !started.supersededScanIds.isEmpty {
                printError("superseded running scan(s) \(started.supersededScanIds.map(String.init).joined(separator: ", "))")
            }
            print("scan \(started.scanID) started (generation \(started.generation))")
            guard wait else { return }
            let terminal = standardErrorIsTerminal
            // Ctrl-C (or SIGTERM) stops the watching, not the scan: the daemon goes on with it,
            // and the person hears so, with how to follow or stop it. The process ends at once
            // (its pending request has nothing to keep).
            let scanID = started.scanID
            let interrupt = Task {
                for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                    if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
                    printError("stopped watching; scan \(scanID) goes on in cull serve. `cull status --scan \(scanID)` follows it, `cull cancel \(scanID)` stops it")
                    Foundation.exit(130)
                }
            }
            defer { interrupt.cancel() }
            var meter = ProgressMeter(terminal: terminal)
            while true {
                guard case .statusReply(let reply) = try await client.request(.statusRequest(.with { $0.scanID = started.scanID })),
                      let scan = reply.scans.first else { throw CLIError.unexpectedAnswer }
                if let text = meter.update(ScanProgress(scan)) { FileHandle.standardError.write(Data(text.utf8)) }
                if scan.state != "running" {
                    if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
                    guard scan.state == "done" else {
                        throw CLIError("scan \(scan.scanID) ended \(scan.state)\(scan.error.isEmpty ? "" : ": \(scan.error)")")
                    }
                    print("scan \(scan.scanID) done: \(scan.total) files, \(scan.failed) failed, \(scan.groups) groups; `cull groups --scan \(scan.scanID)` lists them")
                    return
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}
