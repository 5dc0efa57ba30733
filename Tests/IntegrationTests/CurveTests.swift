import Foundation
import Shared
import Testing

/// `cull serve --key --authorized`: the work endpoint speaks CURVE, and only workers whose
/// public key is in the folder get work; others are refused at the handshake (and logged), a
/// key removed from the folder is refused after SIGHUP, and `cull serve` refuses to listen
/// beyond loopback without keys.
@Suite("CURVE authentication", .serialized, .timeLimit(.minutes(3)))
struct CurveTests {
    func keygen(_ path: String, in directory: String) async throws -> String {
        let result = try await runCommand("cull", ["keygen", path], in: directory)
        #expect(result.status == 0, "keygen: \(result.stderr)")
        return try String(contentsOfFile: path + ".public", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// scratch/keys with the coordinator's pair and one pair per name (public keys returned by
    /// name), and scratch/authorized holding the public keys of `authorized`.
    func keyFolders(in scratch: Scratch, names: [String], authorized: [String]) async throws -> (keys: String, authorized: String, publicKeys: [String: String]) {
        let keys = scratch.path + "/keys", folder = scratch.path + "/authorized"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try await keygen(keys + "/coordinator", in: scratch.path)
        var publicKeys: [String: String] = [:]
        for name in names { publicKeys[name] = try await keygen(keys + "/\(name)", in: scratch.path) }
        for name in authorized { try FileManager.default.copyItem(atPath: keys + "/\(name).public", toPath: folder + "/\(name).public") }
        return (keys, folder, publicKeys)
    }

    @Test("only authorised keys get work: a stranger's key and a worker without keys are refused, the refusal logged; a removed key is refused after SIGHUP")
    func authorisedOnly() async throws {
        let scratch = try Scratch()
        let (keys, authorized, publicKeys) = try await keyFolders(in: scratch, names: ["nas", "stranger"], authorized: ["nas"])
        let trusted = try #require(publicKeys["nas"]), stranger = try #require(publicKeys["stranger"])
        let again = try await runCommand("cull", ["keygen", keys + "/nas"], in: scratch.path)
        #expect(again.status != 0 && again.stderr.contains("never overwritten"), "an existing key is kept: \(again.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: keys + "/nas.secret")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let cluster = try Cluster(serveArguments: ["--key", keys + "/coordinator.secret", "--authorized", authorized])
        let library = scratch.path + "/lib"
        let entries = try await writeLibrary(to: library, scenes: 2, width: 160, height: 120)
        try cluster.startServe()
        func worker(_ id: String, key: String?) throws -> Child {
            let curve = key.map { ["--key", keys + "/\($0).secret", "--server-key", keys + "/coordinator.public"] } ?? []
            return try Child("cull-worker", ["--connect", cluster.work, "--id", id, "--heartbeat-ms", "200", "--compute-threads", "1"] + curve,
                             in: scratch.path)
        }
        // The intruders first: they keep reconnecting the whole test long.
        let intruder = try worker("intruder", key: "stranger")
        let plain = try worker("plain", key: nil)
        defer { intruder.signal(SIGKILL); plain.signal(SIGKILL) }
        try await waitUntil("the stranger's refusal logged") {
            cluster.serve!.stderr.contains("a connection was refused") && cluster.serve!.stderr.contains(stranger)
        }
        try await waitUntil("the keyless worker's failed handshake logged") { cluster.serve!.stderr.contains("CURVE handshake failed") }
        // The refused worker is told why in its own log; one with the wrong coordinator key too.
        try await waitUntil("the stranger told it is refused") { intruder.stderr.contains("refused this worker's key") }
        let wrongServer = try Child("cull-worker", ["--connect", cluster.work, "--id", "misconfigured", "--heartbeat-ms", "200",
                                                    "--key", keys + "/nas.secret", "--server-key", keys + "/stranger.public"], in: scratch.path)
        defer { wrongServer.signal(SIGKILL) }
        try await waitUntil("the wrong server key said") { wrongServer.stderr.contains("CURVE handshake with") }
        let honest = try worker("honest", key: "nas")
        defer { honest.signal(SIGKILL) }
        try await cluster.waitForWorkers(1)
        let scan = try await cluster.startScan(library)
        try await cluster.waitFor(scan: scan, timeout: .seconds(60)) { $0.state == "done" }
        let csv = try await cluster.groupsCSV(scan: scan)
        #expect(!csv.rows.isEmpty && entries.count > 1)
        // Both intruders kept trying all along: had either got in, it would be listed.
        let workers = try #require(await cluster.status()).workers.map(\.workerID)
        #expect(workers == ["honest"], "\(workers)")
        #expect(intruder.stderr.components(separatedBy: "refused this worker's key").count - 1 == 1, "said once a minute at most")
        #expect(cluster.serve!.stderr.components(separatedBy: stranger).count - 1 == 1, "each refusal is logged once a minute at most")

        // The key leaves the folder: from the next connection on, it is refused.
        try FileManager.default.removeItem(atPath: authorized + "/nas.public")
        cluster.serve!.signal(SIGHUP)
        try await waitUntil("the keys read again") { cluster.serve!.stderr.contains("authorised keys read again") }
        let late = try worker("late", key: "nas")
        defer { late.signal(SIGKILL) }
        try await waitUntil("the removed key refused") { cluster.serve!.stderr.contains(trusted) }
        #expect(try #require(await cluster.status()).workers.map(\.workerID) == ["honest"], "the connection made before stays")
        #expect(await cluster.serve!.stop() == 0)
    }

    @Test("a worker id belongs to the connection that holds it: another key claiming it is held aside, the owner keeps its work; cull workers names each worker's key")
    func idsStayWithTheirKey() async throws {
        let scratch = try Scratch()
        let (keys, authorized, _) = try await keyFolders(in: scratch, names: ["owner", "claimant"], authorized: ["owner", "claimant"])
        let cluster = try Cluster(serveArguments: ["--key", keys + "/coordinator.secret", "--authorized", authorized])
        let library = scratch.path + "/lib"
        _ = try await writeLibrary(to: library, scenes: 2, width: 160, height: 120)
        try cluster.startServe()
        func worker(key: String) throws -> Child {
            try Child("cull-worker", ["--connect", cluster.work, "--id", "shared-id", "--heartbeat-ms", "200", "--compute-threads", "1",
                                      "--key", keys + "/\(key).secret", "--server-key", keys + "/coordinator.public"], in: scratch.path)
        }
        let owner = try worker(key: "owner")
        defer { owner.signal(SIGKILL) }
        try await cluster.waitForWorkers(1)
        let claimant = try worker(key: "claimant")
        defer { claimant.signal(SIGKILL) }
        try await waitUntil("the claimant's key accepted") { cluster.serve!.stderr.contains("key=claimant") }
        // Its HELLO would follow at once: a whole scan later, the id is still the owner's.
        let scan = try await cluster.startScan(library)
        try await cluster.waitFor(scan: scan, timeout: .seconds(60)) { $0.state == "done" }
        let workers = try #require(await cluster.status()).workers
        #expect(workers.map(\.workerID) == ["shared-id"] && workers.first?.keyName == "owner", "\(workers)")
        #expect((workers.first?.photosDone ?? 0) > 0)
        let listing = try await cluster.cull(["workers"])
        #expect(listing.stdout.contains("shared-id\t") && listing.stdout.contains("\towner\t"), "\(listing.stdout)")
    }

    @Test("a control endpoint other machines reach speaks CURVE: an authorised client key (flags or CULL_KEY) is answered; no key and a stranger's key get no answer, the stranger logged")
    func remoteControl() async throws {
        let scratch = try Scratch()
        let (keys, authorized, publicKeys) = try await keyFolders(in: scratch, names: ["admin", "stranger"], authorized: ["admin"])
        let stranger = try #require(publicKeys["stranger"])
        let ports = try freePorts(2)
        let serve = try Child("cull", ["serve", "--db", scratch.path + "/db.sqlite", "--work", "tcp://127.0.0.1:\(ports[0])",
                                       "--control", "tcp://0.0.0.0:\(ports[1])", "--key", keys + "/coordinator.secret", "--authorized", authorized],
                              in: scratch.path)
        defer { serve.signal(SIGKILL) }
        let control = ["--control", "tcp://127.0.0.1:\(ports[1])", "--timeout", "2"]
        func status(key: String?, environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
            let curve = key.map { ["--key", keys + "/\($0).secret", "--server-key", keys + "/coordinator.public"] } ?? []
            return try await runCommand("cull", ["status"] + control + curve, environment: environment, in: scratch.path)
        }
        try await waitUntil("the authorised client answered") { try await status(key: "admin").status == 0 }
        let viaEnvironment = try await status(key: nil, environment: ["CULL_KEY": keys + "/admin.secret", "CULL_SERVER_KEY": keys + "/coordinator.public"])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
        let plain = try await status(key: nil)
        #expect(plain.status != 0 && plain.stderr.contains("answers only clients with an authorised key"), "\(plain.stderr)")
        let refused = try await status(key: "stranger")
        #expect(refused.status != 0 && refused.stderr.contains("--authorized folder"), "\(refused.stderr)")
        try await waitUntil("the stranger's refusal logged") { serve.stderr.contains("a connection was refused") && serve.stderr.contains(stranger) }
    }

    @Test("cull serve refuses an address other machines reach without keys, and half a key setup; --insecure lets it listen")
    func refusesOpenEndpoints() async throws {
        let scratch = try Scratch()
        let ports = try freePorts(2)
        let open = ["serve", "--db", scratch.path + "/db.sqlite", "--work", "tcp://0.0.0.0:\(ports[0])", "--control", "tcp://127.0.0.1:\(ports[1])"]
        let refused = try await runCommand("cull", open, in: scratch.path)
        #expect(refused.status != 0 && refused.stderr.contains("cull keygen") && refused.stderr.contains("--insecure"), "\(refused.stderr)")
        let control = try await runCommand("cull", ["serve", "--db", scratch.path + "/db.sqlite", "--control", "tcp://0.0.0.0:\(ports[1])"], in: scratch.path)
        #expect(control.status != 0 && control.stderr.contains("without --key anyone reaching it") && control.stderr.contains("--insecure"), "\(control.stderr)")
        let half = try await runCommand("cull", ["serve", "--db", scratch.path + "/db.sqlite", "--key", scratch.path + "/k.secret"], in: scratch.path)
        #expect(half.status != 0 && half.stderr.contains("--authorized"), "\(half.stderr)")
        let insecure = try Child("cull", open + ["--insecure"], in: scratch.path)
        defer { insecure.signal(SIGKILL) }
        // Serving once its control endpoint answers (its signal handlers are in place by then:
        // a SIGTERM between "listening" and the services' start would end it by the signal).
        try await waitUntil("serving with --insecure") {
            try await runCommand("cull", ["status", "--control", "tcp://127.0.0.1:\(ports[1])", "--timeout", "2"], in: scratch.path).status == 0
        }
        #expect(await insecure.stop() == 0)
    }
}
