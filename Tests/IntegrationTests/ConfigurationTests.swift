import Foundation
import Testing

/// Issue 11, point 7: one configuration file, environment variables and flags for every
/// setting, one precedence; `--check-config` prints the outcome.
@Suite("Configuration file and --check-config", .timeLimit(.minutes(2)))
struct ConfigurationTests {
    func line(_ variable: String, in output: String) -> String {
        output.split(separator: "\n").first { $0.hasPrefix(variable + " ") }.map(String.init) ?? ""
    }

    @Test("cull serve: a flag wins over the environment, the environment over the file; --check-config says which gave each value")
    func servePrecedence() async throws {
        let scratch = try Scratch()
        let config = scratch.path + "/cull.env"
        try """
            # as deploy/cull.env
            CULL_JOB_SIZE=24
            CULL_THRESHOLD=12
            CULL_METRICS=127.0.0.1:9999
            CULL_LIBRARY_ROOTS=/mnt/photos,/mnt/archive
            CULL_KEY=
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await runCommand("cull", ["serve", "--check-config", "--db", scratch.path + "/cull.sqlite",
                                                   "--control", "ipc://\(scratch.path)/control", "--threshold", "8"],
                                          environment: ["CULL_CONFIG": config, "CULL_JOB_SIZE": "32"], in: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("configuration file: \(config)"))
        #expect(line("CULL_THRESHOLD", in: result.stdout).hasSuffix("8  (--threshold, flag)"))
        #expect(line("CULL_JOB_SIZE", in: result.stdout).hasSuffix("32  (--job-size, environment)"))
        #expect(line("CULL_METRICS", in: result.stdout).hasSuffix("127.0.0.1:9999  (--metrics, file)"))
        #expect(line("CULL_LIBRARY_ROOTS", in: result.stdout).hasSuffix("/mnt/photos,/mnt/archive  (--library-root, file)"))
        #expect(line("CULL_LIVENESS", in: result.stdout).hasSuffix("5  (--liveness, default)"))
        #expect(result.stdout.contains("configuration valid"))
    }

    @Test("a bad value in the file gets the flag's own message; a missing file named with --config is refused")
    func badValues() async throws {
        let scratch = try Scratch()
        let config = scratch.path + "/cull.env"
        try "CULL_JOB_SIZE=many\n".write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try await runCommand("cull", ["serve", "--check-config", "--config", config, "--db", scratch.path + "/cull.sqlite"], in: scratch.path)
        #expect(bad.status != 0 && bad.stderr.contains("--job-size came from CULL_JOB_SIZE in the configuration file \(config)"), "\(bad.stderr)")
        let missing = try await runCommand("cull", ["serve", "--check-config", "--config", scratch.path + "/none.env"], in: scratch.path)
        #expect(missing.status == 1 && missing.stderr.contains("cannot read the configuration file \(scratch.path)/none.env"), "\(missing.stderr)")
        try "CULL_INSECURE=perhaps\n".write(toFile: config, atomically: true, encoding: .utf8)
        let switchValue = try await runCommand("cull", ["serve", "--check-config", "--config", config], in: scratch.path)
        #expect(switchValue.status == 1 && switchValue.stderr.contains("CULL_INSECURE=perhaps (from the configuration file): expected true or false"))
    }

    @Test("cull-worker: its folders and keys from the file, checked by --check-config; a folder that does not exist is refused")
    func worker() async throws {
        let scratch = try Scratch()
        let library = scratch.path + "/photos"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let config = scratch.path + "/cull.env"
        try "CULL_WORK=tcp://127.0.0.1:5999\nCULL_WORKER_ROOTS=\(library)\nCULL_WORKER_FETCH_THREADS=3\n".write(toFile: config, atomically: true, encoding: .utf8)
        let good = try await runCommand("cull-worker", ["--check-config"], environment: ["CULL_CONFIG": config], in: scratch.path)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(line("CULL_WORK", in: good.stdout).hasSuffix("tcp://127.0.0.1:5999  (--connect, file)"))
        #expect(line("CULL_WORKER_ROOTS", in: good.stdout).hasSuffix("\(library)  (--root, file)"))
        #expect(line("CULL_WORKER_FETCH_THREADS", in: good.stdout).hasSuffix("3  (--fetch-threads, file)"))
        let gone = try await runCommand("cull-worker", ["--check-config"],
                                        environment: ["CULL_CONFIG": config, "CULL_WORKER_ROOTS": scratch.path + "/gone"], in: scratch.path)
        #expect(gone.status == 64 && gone.stderr.contains("/gone"), "\(gone.stderr)")
    }
}
