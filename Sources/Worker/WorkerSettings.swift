import ArgumentParser
import Foundation
import Shared

extension WorkerCommand {
    /// Every setting of `cull-worker`, as a flag, an environment variable and a key of the
    /// configuration file (`LayeredArguments`; deploy/cull.env documents them). The worker's
    /// own keys start with CULL_WORKER_ where `cull serve` has a setting of the same name; the
    /// endpoint, the keys and the log level are shared with the units' file.
    static let settings: [Setting<WorkerCommand>] = [
        Setting("--connect", "CULL_WORK") { $0.connect },
        Setting("--id", "CULL_WORKER_ID") { $0.id ?? "" },
        Setting("--root", "CULL_WORKER_ROOTS", .list) { $0.roots.joined(separator: ",") },
        Setting("--path-map", "CULL_WORKER_PATH_MAPS", .list) { $0.pathMaps.joined(separator: ",") },
        Setting("--fetch-threads", "CULL_WORKER_FETCH_THREADS") { "\($0.fetchThreads)" },
        Setting("--compute-threads", "CULL_WORKER_COMPUTE_THREADS") { "\($0.computeThreads ?? ProcessInfo.processInfo.activeProcessorCount)" },
        Setting("--capacity", "CULL_WORKER_CAPACITY") { "\($0.capacity ?? 2 * ($0.computeThreads ?? ProcessInfo.processInfo.activeProcessorCount))" },
        Setting("--max-stuck-reads", "CULL_WORKER_MAX_STUCK_READS") { "\($0.maxStuckReads)" },
        Setting("--max-file-mb", "CULL_WORKER_MAX_FILE_MB") { "\($0.maxFileMb)" },
        Setting("--max-megapixels", "CULL_WORKER_MAX_MEGAPIXELS") { "\($0.maxMegapixels)" },
        Setting("--key", "CULL_KEY") { $0.key ?? "" },
        Setting("--server-key", "CULL_SERVER_KEY") { $0.serverKey ?? "" },
        Setting("--metrics", "CULL_WORKER_METRICS") { $0.metrics ?? "" },
        Setting("--log-level", "CULL_LOG_LEVEL") { $0.daemonOptions.logLevel.map { "\($0)" } ?? "info" },
        Setting("--watchdog", "CULL_WATCHDOG") { $0.daemonOptions.watchdog?.argumentText ?? "2s" },
        Setting("--heartbeat", "CULL_WORKER_HEARTBEAT") { $0.daemonOptions.heartbeat.argumentText },
        Setting("--liveness", "CULL_WORKER_LIVENESS") { "\($0.daemonOptions.liveness)" },
    ]

    /// Parses and runs the worker, its command line first filled in from the environment and
    /// the configuration file (`LayeredArguments`). `cull run`'s own workers (--exit-with-parent)
    /// take only what `cull run` gives them: a library's worker settings in the system's file
    /// (its --root folders, its keys) are not theirs.
    static func main() async {
        // First, on the main thread before any task runs: it reads /proc/cpuinfo.
        CPUBaseline.exitIfUnsupported(program: "cull-worker")
        let arguments = Array(CommandLine.arguments.dropFirst())
        var layered = LayeredArguments(arguments: arguments, origins: [:], file: nil)
        if !arguments.contains(where: { $0 == "--exit-with-parent" || $0.hasPrefix("--exit-with-parent=") }) {
            do {
                layered = try await LayeredArguments.resolve(arguments, settings: settings, environment: ProcessInfo.processInfo.environment)
            } catch {
                FileHandle.standardError.write(Data("cull-worker: \(error)\n".utf8))
                exit(withError: ExitCode(WorkerExitStatus.usage.rawValue))
            }
        }
        do {
            let command = try parse(layered.arguments)
            if command.configFile.checkConfig {
                print(layered.report(command, settings: settings))
                do {
                    _ = try command.readPolicy()
                    _ = try command.curveKeys()
                } catch {
                    FileHandle.standardError.write(Data("cull-worker: \(error)\n".utf8))
                    exit(withError: ExitCode(WorkerExitStatus.usage.rawValue))
                }
                print("\nconfiguration valid")
                return
            }
            try await command.run()
        } catch {
            if let origin = layered.provenance(of: message(for: error), settings: settings) {
                FileHandle.standardError.write(Data("cull-worker: \(origin)\n".utf8))
            }
            exit(withError: error)
        }
    }
}
