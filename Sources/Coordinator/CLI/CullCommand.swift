import ArgumentParser
import Foundation
import Shared

@main
struct CullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cull",
        abstract: "Finds duplicate and near-duplicate photos in large libraries.",
        discussion: """
            `cull run DIR` does everything in one go on this machine. For large libraries and \
            several machines, run the coordinator daemon (`cull serve`) and any number of \
            `cull-worker` daemons, then drive it with `cull scan`, `cull status` and `cull groups`.
            """,
        version: CullVersion.software,
        subcommands: [
            RunCommand.self, ServeCommand.self, ScanCommand.self, StatusCommand.self,
            CancelCommand.self, GroupsCommand.self, PhotosCommand.self, WorkersCommand.self, ApplyCommand.self, UndoCommand.self,
            SampleLibraryCommand.self, KeygenCommand.self,
        ]
    )

    /// Parses and runs the command. `cull serve`'s command line is first filled in from the
    /// environment and the configuration file (`LayeredArguments`), and `--check-config` prints
    /// the outcome instead of serving.
    static func main() async {
        // First, on the main thread before any task runs: it reads /proc/cpuinfo.
        CPUBaseline.exitIfUnsupported(program: "cull")
        var arguments = Array(CommandLine.arguments.dropFirst())
        var layered: LayeredArguments?
        if arguments.first == "serve" {
            do {
                let resolved = try await LayeredArguments.resolve(Array(arguments.dropFirst()), settings: ServeCommand.settings,
                                                                  environment: ProcessInfo.processInfo.environment)
                arguments = ["serve"] + resolved.arguments
                layered = resolved
            } catch {
                printError("\(error)")
                exit(withError: ExitCode.failure)
            }
        }
        do {
            var command = try parseAsRoot(arguments)
            if let serve = command as? ServeCommand, serve.configFile.checkConfig, let layered {
                print(layered.report(serve, settings: ServeCommand.settings))
                do {
                    try await serve.checkFiles()
                } catch {
                    printError("\(error)")
                    exit(withError: ExitCode.failure)
                }
                print("\nconfiguration valid")
                return
            }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if let layered, let origin = layered.provenance(of: message(for: error), settings: ServeCommand.settings) {
                printError(origin)
            }
            exit(withError: error)
        }
    }
}
