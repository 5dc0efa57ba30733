import Foundation
import Testing

@Suite("CLI errors", .timeLimit(.minutes(5)))
struct CLIErrorTests {
    @Test("no daemon: a clear message and a non-zero exit at once, not after the timeout")
    func noDaemon() async throws {
        let scratch = try Scratch()
        let port = try freePorts(1)[0]
        for endpoint in ["tcp://127.0.0.1:\(port)", "ipc://\(scratch.path)/no-such-socket"] {
            let started = ContinuousClock.now
            let result = try await runCommand("cull", ["status", "--control", endpoint, "--timeout", "300"], in: scratch.path, timeout: .seconds(330))
            #expect(result.status == 1)
            #expect(result.stderr.contains("nothing listens at \(endpoint)"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("Is cull serve running?"))
            // Refused in milliseconds; the bound is loose (at the suite's start two cores run the
            // CPU-bound unit tests, the chaos test and a dozen `cull run`s, and starting a
            // process can take tens of seconds) but far under the 300 s timeout the client
            // would otherwise wait out.
            #expect(ContinuousClock.now - started < .seconds(90))
        }
    }

    @Test("a peer that listens but never answers: the request's timeout, then a clear message")
    func silentPeer() async throws {
        let scratch = try Scratch()
        let listener = try SilentListener()
        defer { listener.close() }
        let result = try await runCommand("cull", ["status", "--control", "tcp://127.0.0.1:\(listener.port)", "--timeout", "1"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("no answer from cull serve"), "stderr: \(result.stderr)")
    }

    @Test("a control endpoint without its scheme gets the fix")
    func endpointWithoutScheme() async throws {
        let scratch = try Scratch()
        let result = try await runCommand("cull", ["status", "--control", "127.0.0.1:5556"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("write tcp://127.0.0.1:5556"), "stderr: \(result.stderr)")
    }

    @Test("an empty folder argument is refused, not taken for the current directory")
    func emptyFolder() async throws {
        let scratch = try Scratch()
        try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: scratch.path + "/stray.jpg"))
        for command in [["run", "", "--db", scratch.path + "/x.sqlite"], ["scan", " ", "--control", "tcp://127.0.0.1:1"]] {
            let result = try await runCommand("cull", command, in: scratch.path)
            #expect(result.status != 0, "\(command)")
            #expect(result.stderr.contains("no folder given"), "stderr: \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/x.sqlite"), "nothing was scanned")
    }

    @Test("an unreadable folder is an error, not an empty result")
    func unreadableFolder() async throws {
        let scratch = try Scratch()
        let locked = scratch.path + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        chmod(locked, 0)
        defer { chmod(locked, 0o755) }
        let result = try await runCullAsUser(["run", locked, "--db", scratch.path + "/x.sqlite"], in: scratch.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot read \(locked)"), "stderr: \(result.stderr)")
    }

    @Test("--format is case-insensitive")
    func formatCase() async throws {
        let scratch = try Scratch()
        let result = try await runCommand("cull", ["run", scratch.path, "--db", scratch.path + "/x.sqlite", "--format", "CSV", "--workers", "1"], in: scratch.path)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("group,kind,path,keeper,distance"))
    }

    @Test("a directory that does not exist")
    func missingDirectory() async throws {
        let scratch = try Scratch()
        let result = try await runCommand("cull", ["run", scratch.path + "/nope", "--db", scratch.path + "/x.sqlite"], in: scratch.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("does not exist"))
    }

    @Test("a database that cannot be opened")
    func badDatabase() async throws {
        let scratch = try Scratch()
        let notADatabase = scratch.path + "/notes.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: notADatabase))
        let result = try await runCommand("cull", ["run", scratch.path, "--db", notADatabase], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a cull database"), "stderr: \(result.stderr)")
    }

    @Test("a second daemon on a busy endpoint says so")
    func busyEndpoint() async throws {
        let scratch = try Scratch()
        let ports = try freePorts(2)
        let args = ["serve", "--db", scratch.path + "/a.sqlite", "--work", "tcp://127.0.0.1:\(ports[0])", "--control", "tcp://127.0.0.1:\(ports[1])"]
        let first = try Child("cull", args, in: scratch.path)
        defer { first.signal(SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(30)
        while !first.stderr.contains("listening"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(first.stderr.contains("listening"), "the first daemon came up: \(first.stderr)")
        let second = try await runCommand("cull", args.map { $0.replacingOccurrences(of: "a.sqlite", with: "b.sqlite") }, in: scratch.path, timeout: .seconds(30))
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot listen on"), "stderr: \(second.stderr)")
        await first.stop()
    }
}

/// A TCP port that accepts connections and never says a word: a daemon that is there but hung.
final class SilentListener: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 8) == 0 else { throw HarnessError("cannot listen on a free port") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}

/// `cull` as a user who cannot read a chmod 000 folder: root lists every folder, so there cull
/// (and the workers it starts) run without those capabilities (BrokenFilesTests).
func runCullAsUser(_ arguments: [String], in directory: String) async throws -> (status: Int32, stdout: String, stderr: String) {
    guard getuid() == 0 else { return try await runCommand("cull", arguments, in: directory) }
    return try await runCommand("/usr/bin/setpriv", BrokenFilesTests.withoutDACOverride + [try Binaries.url("cull").path] + arguments, in: directory)
}

@Suite("Unreadable subfolders", .timeLimit(.minutes(5)))
struct UnreadableSubfolderTests {
    @Test("an unreadable subfolder is counted and named; the rest of the library is scanned")
    func unreadableSubfolder() async throws {
        let scratch = try Scratch()
        let library = scratch.path + "/library"
        let entries = try await writeLibrary(to: library, scenes: 2, width: 320, height: 240)
        let locked = library + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: locked + "/inside.jpg"))
        chmod(locked, 0)
        defer { chmod(locked, 0o755) }
        let run = try await runCullAsUser(["run", library, "--workers", "1", "--db", scratch.path + "/x.sqlite", "--format", "csv", "--show-failures"],
                                          in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("scanned \(entries.count + 1) files"), "the folder counts as one entry: \(run.stderr)")
        #expect(run.stderr.contains("unreadable: \(locked)"), "the folder is named with its failure: \(run.stderr)")
        #expect(run.stderr.contains("Permission denied"), "and the reason: \(run.stderr)")
        #expect(try GroupsCSV(run.stdout).groupOf.keys.allSatisfy { !$0.hasPrefix(locked) })
    }
}

@Suite("One coordinator per database", .timeLimit(.minutes(5)))
struct DatabaseLockTests {
    @Test("a second cull serve or cull run on a database in use is refused, naming the holder; a killed holder frees it")
    func secondCoordinator() async throws {
        let scratch = try Scratch()
        let database = scratch.path + "/shared.sqlite"
        func serveArguments() throws -> [String] {
            let ports = try freePorts(2)
            return ["serve", "--db", database, "--work", "tcp://127.0.0.1:\(ports[0])", "--control", "tcp://127.0.0.1:\(ports[1])"]
        }
        let first = try Child("cull", try serveArguments(), in: scratch.path)
        defer { first.signal(SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(30)
        while !first.stderr.contains("listening"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try #require(first.stderr.contains("listening"), "the first daemon came up: \(first.stderr)")

        let second = try await runCommand("cull", try serveArguments(), in: scratch.path, timeout: .seconds(30))
        #expect(second.status == 1)
        #expect(second.stderr.contains("is in use by cull serve (pid \(first.process.processIdentifier))"), "stderr: \(second.stderr)")
        let run = try await runCommand("cull", ["run", scratch.path, "--db", database], in: scratch.path, timeout: .seconds(30))
        #expect(run.status == 1)
        #expect(run.stderr.contains("one coordinator per database"), "stderr: \(run.stderr)")

        // kill -9: the kernel lets go of the lock, so the restart is not locked out.
        first.signal(SIGKILL)
        _ = await first.wait(timeout: .seconds(10))
        try FileManager.default.createDirectory(atPath: scratch.path + "/empty", withIntermediateDirectories: false)
        let again = try await runCommand("cull", ["run", scratch.path + "/empty", "--db", database], in: scratch.path, timeout: .seconds(60))
        #expect(again.status == 0 && !again.stderr.contains("in use by"), "stderr: \(again.stderr)")
    }
}

@Suite("Interrupting cull scan --wait", .timeLimit(.minutes(5)))
struct ScanWaitInterruptTests {
    @Test("Ctrl-C stops the watching, not the scan, and says how to follow or cancel it")
    func interruptWatching() async throws {
        let (cluster, library, _) = try await Cluster.slowScans(readDelay: 100, scenes: 8, workers: 1)
        let watcher = try Child("cull", ["scan", library, "--wait", "--control", cluster.control], in: cluster.scratch.path)
        defer { watcher.signal(SIGKILL) }
        // Interrupted once it watches: the scan has started and made progress.
        let deadline = ContinuousClock.now + .seconds(60)
        while !watcher.stderr.contains(" photos · "), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try #require(watcher.stderr.contains(" photos · "), "the watcher shows progress: \(watcher.stderr)")
        watcher.signal(SIGINT)
        #expect(await watcher.wait(timeout: .seconds(20)) == 130)
        let scan = try #require(Int64(watcher.stdout.split(separator: " ").dropFirst().first ?? ""), "stdout: \(watcher.stdout)")
        #expect(watcher.stderr.contains("scan \(scan) goes on in cull serve"), "stderr: \(watcher.stderr)")
        #expect(watcher.stderr.contains("`cull cancel \(scan)` stops it"))
        // The daemon goes on to the end.
        let ended = try await cluster.waitFor(scan: scan, timeout: .seconds(120)) { $0.state != "running" }
        #expect(ended.state == "done")
    }
}
