import Foundation
import Testing

@Suite("CLI errors", .timeLimit(.minutes(5)))
struct CLIErrorTests {
    @Test("no daemon: a clear message and a non-zero exit, within the timeout")
    func noDaemon() async throws {
        let scratch = try Scratch()
        let port = try freePorts(1)[0]
        let started = ContinuousClock.now
        let result = try await runCommand("cull", ["status", "--control", "tcp://127.0.0.1:\(port)", "--timeout", "1"], in: scratch.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("no answer from cull serve"))
        #expect(result.stderr.contains("cull serve"))
        // The CLI gives up after its 1 s timeout; the bound is loose because the test runs beside
        // the chaos test on two cores, and a hang would blow through it anyway.
        #expect(ContinuousClock.now - started < .seconds(60))
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
