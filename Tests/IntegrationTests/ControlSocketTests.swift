import Foundation
import Testing

/// The control endpoint as a Unix socket: its folder made, its file's permissions set (0660 with
/// group cull when that group exists, else 0600), and a second daemon on the same path refused
/// rather than let libzmq take the path over silently.
@Suite("Control socket", .serialized, .timeLimit(.minutes(2)))
struct ControlSocketTests {
    @Test("an ipc:// control endpoint: folder and socket permissions, clients reach it, a second daemon on the path is refused")
    func unixSocket() async throws {
        let scratch = try Scratch()
        let socket = scratch.path + "/run/cull/control", endpoint = "ipc://" + socket
        let port = try freePorts(1)[0]
        let serve = try Child("cull", ["serve", "--db", scratch.path + "/a.sqlite", "--work", "tcp://127.0.0.1:\(port)", "--control", endpoint],
                              in: scratch.path)
        defer { serve.signal(SIGKILL) }
        try await waitUntil("listening on the socket: \(serve.stderr)") { serve.stderr.contains("listening") || !serve.isRunning }
        #expect(serve.stderr.contains("listening"), "\(serve.stderr)")

        let grouped = getgrnam("cull") != nil
        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        #expect(attributes[.posixPermissions] as? Int == (grouped ? 0o660 : 0o600), "\(attributes)")
        let folder = try FileManager.default.attributesOfItem(atPath: scratch.path + "/run/cull")
        #expect(folder[.posixPermissions] as? Int == (grouped ? 0o750 : 0o700))
        #expect(serve.stderr.contains(grouped ? "0660, group cull" : "0600, its owner only"))

        let status = try await runCommand("cull", ["status", "--control", endpoint], in: scratch.path)
        #expect(status.status == 0, "\(status.stderr)")
        let second = try await runCommand("cull", ["serve", "--db", scratch.path + "/b.sqlite", "--work", "tcp://127.0.0.1:\(try freePorts(1)[0])",
                                                   "--control", endpoint], in: scratch.path)
        #expect(second.status != 0 && second.stderr.contains("another cull serve listens at \(endpoint)"), "\(second.stderr)")
        let still = try await runCommand("cull", ["status", "--control", endpoint], in: scratch.path)
        #expect(still.status == 0, "the first daemon keeps its socket: \(still.stderr)")
        #expect(await serve.stop() == 0)
    }
}
