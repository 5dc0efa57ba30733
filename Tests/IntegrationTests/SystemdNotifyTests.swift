import Foundation
import Shared
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Under systemd (`Type=notify`), both daemons say READY once they serve, send STATUS lines and
/// watchdog pings (WatchdogSec, passed as WATCHDOG_USEC), and STOPPING when SIGTERM arrives. A
/// fake NOTIFY_SOCKET stands in for systemd.
@Suite("systemd notifications", .serialized, .timeLimit(.minutes(2)))
struct SystemdNotifyTests {
    /// A Unix datagram socket where the daemon's sd_notify messages arrive.
    final class FakeSystemd: @unchecked Sendable {
        // @unchecked: the descriptor is read by one thread at a time (`collect` runs on its own
        // thread and the test awaits it before the next call).
        let path: String
        private let descriptor: Int32
        private var messages: [String] = []

        init(path: String) throws {
            self.path = path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            guard descriptor >= 0 else { throw HarnessError("socket: \(errno)") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes.prefix(raw.count - 1)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0 else { throw HarnessError("bind \(path): \(errno)") }
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)  // each read waits 100 ms at most
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        /// Every message received so far, once `done` holds for them or the deadline passes.
        func collect(timeout: Duration, until done: @escaping @Sendable ([String]) -> Bool) async throws -> [String] {
            try await onOwnThread { [self] in
                let deadline = ContinuousClock.now + timeout
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !done(messages) && ContinuousClock.now < deadline {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count > 0 { messages.append(String(decoding: buffer[..<count], as: UTF8.self)) }
                }
                return messages
            }
        }
    }

    static func has(_ prefix: String) -> @Sendable ([String]) -> Bool {
        { messages in messages.contains { $0.split(separator: "\n").contains { $0.hasPrefix(prefix) } } }
    }

    @Test("cull serve and cull-worker: READY, STATUS, WATCHDOG, then STOPPING on SIGTERM", arguments: ["serve", "worker"])
    func notifications(daemon: String) async throws {
        let scratch = try Scratch()
        let systemd = try FakeSystemd(path: scratch.path + "/notify")
        let ports = try freePorts(2)
        let environment = ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "400000"]
        let child = daemon == "serve"
            ? try Child("cull", ["serve", "--db", scratch.path + "/db.sqlite", "--work", "tcp://127.0.0.1:\(ports[0])",
                                 "--control", "tcp://127.0.0.1:\(ports[1])"], environment: environment, in: scratch.path)
            : try Child("cull-worker", ["--connect", "tcp://127.0.0.1:\(ports[0])", "--id", "notified"], environment: environment, in: scratch.path)
        defer { child.signal(SIGKILL) }
        let running = try await systemd.collect(timeout: .seconds(30)) { Self.has("READY=1")($0) && Self.has("WATCHDOG=1")($0) && Self.has("STATUS=")($0) }
        #expect(Self.has("READY=1")(running) && Self.has("WATCHDOG=1")(running), "\(running)\n\(child.stderr)")
        let status = running.flatMap { $0.split(separator: "\n") }.first { $0.hasPrefix("STATUS=") }.map(String.init) ?? ""
        #expect(status.contains(daemon == "serve" ? "workers" : "waiting for the coordinator"), "\(status)")
        #expect(!Self.has("STOPPING=1")(running))
        child.signal(SIGTERM)
        let stopping = try await systemd.collect(timeout: .seconds(30), until: Self.has("STOPPING=1"))
        #expect(Self.has("STOPPING=1")(stopping), "\(stopping)\n\(child.stderr)")
        #expect(await child.wait(timeout: .seconds(30)) == 0)
    }

    /// The repository's deploy/ folder (this file is Tests/IntegrationTests/SystemdNotifyTests.swift).
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy").path

    @Test("systemd-analyze verify passes on the units (with the built binaries where they install to)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
                   "systemd-analyze is not installed here: the unit files are not verified"))
    func unitsVerify() async throws {
        let scratch = try Scratch()
        let binaries = try Binaries.url("cull").deletingLastPathComponent().path + "/"
        // The template is verified as an instance; ExecStart points at the binaries just built.
        for (unit, name) in [("cull.service", "cull.service"), ("cull-worker@.service", "cull-worker@1.service")] {
            let text = try String(contentsOfFile: Self.deploy + "/" + unit, encoding: .utf8)
            #expect(text.contains("Type=notify") && text.contains("WatchdogSec="), "\(unit) is a notify unit with a watchdog")
            try text.replacingOccurrences(of: "/usr/local/bin/", with: binaries)
                .write(toFile: scratch.path + "/" + name, atomically: true, encoding: .utf8)
        }
        let result = try await runCommand("/usr/bin/systemd-analyze", ["verify", "--man=no", scratch.path + "/cull.service", scratch.path + "/cull-worker@1.service"],
                                          in: scratch.path)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
