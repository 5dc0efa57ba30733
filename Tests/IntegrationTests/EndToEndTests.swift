import Analysis
import CZeroMQ
import Foundation
import Logging
import Shared
import Testing

/// Real processes on loopback: `cull run`, and `cull serve` with two `cull-worker`s driven by
/// the CLI, on a generated library of JPEGs with known duplicates.
@Suite("End to end", .serialized, .timeLimit(.minutes(5)))
struct EndToEndTests {
    /// The edits grouping must always catch on the synthetic scenes.
    static let mustGroup: [SampleLibrary.Edit] = [.original, .exactCopy, .resized, .recompressed, .brightened, .exifRotated, .png, .webp]

    func checkGroups(_ groups: GroupsCSV, entries: [SampleLibrary.Entry]) {
        let scenes = Dictionary(grouping: entries.filter { $0.edit != nil }, by: \.scene)
        var groupIDs = Set<String>()
        for (scene, files) in scenes {
            let original = files.first { $0.edit == .original }!.path
            let group = groups.groupOf[original]
            #expect(group != nil, "scene \(scene)'s original is in a group")
            groupIDs.insert(group ?? "")
            for file in files where Self.mustGroup.contains(file.edit!) {
                #expect(groups.groupOf[file.path] == group, "\(file.path) is grouped with its original")
            }
            // No member of another scene in this group (precision).
            let members = groups.groupOf.filter { $0.value == group }.map(\.key)
            #expect(members.allSatisfy { path in files.contains { $0.path == path } }, "scene \(scene)'s group holds only its own files")
            // The keeper is the camera original (or its byte copy), not the larger PNG export.
            let keeper = groups.keepers.first { path in members.contains(path) }
            let expectedKeeper = ["/original.jpg", "/copy.jpg"]
            #expect(keeper.map { path in expectedKeeper.contains { path.hasSuffix($0) } } == true, "keeper \(keeper ?? "none")")
        }
        #expect(groupIDs.count == scenes.count, "one group per scene")
        #expect(!groups.groupOf.keys.contains { $0.hasSuffix("notes.txt") })
    }

    @Test("cull run groups a generated library and reports the non-photo")
    func cullRun() async throws {
        let scratch = try Scratch()
        let library = scratch.path + "/library"
        let entries = try await writeLibrary(to: library, scenes: 5, width: 480, height: 360)
        let run = try await runCommand("cull", ["run", library, "--workers", "2", "--db", scratch.path + "/run.sqlite", "--format", "csv", "--show-failures",
                                                "--log-level", "info"],
                                       environment: ["CULL_POOL_WATCHDOG_MS": "250"], in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("cooperative pool stalled"), "stderr: \(run.stderr)")
        let groups = try GroupsCSV(run.stdout)
        checkGroups(groups, entries: entries)
        #expect(run.stderr.contains("unsupported: \(library)/notes.txt"))
        #expect(run.stderr.contains("scanned \(entries.count) files in \(library): \(entries.count) new or changed, 0 unchanged, 1 could not be analysed"),
                "stderr: \(run.stderr)")

        #expect(run.stderr.contains("worker joined"), "stderr: \(run.stderr)")

        // A second run analyses nothing again and gives the same groups, without starting a
        // worker: nothing waits for analysis.
        let again = try await runCommand("cull", ["run", library, "--workers", "1", "--db", scratch.path + "/run.sqlite", "--format", "csv",
                                                  "--log-level", "info"], in: scratch.path)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(!again.stderr.contains("worker joined"), "no worker started: \(again.stderr)")
        #expect(try GroupsCSV(again.stdout).partition == groups.partition)
        #expect(again.stderr.contains("0 new or changed, \(entries.count) unchanged"), "stderr: \(again.stderr)")

        let json = try await runCommand("cull", ["run", library, "--workers", "1", "--db", scratch.path + "/run.sqlite", "--format", "json"], in: scratch.path)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(decoded?.count == 5)
    }

    @Test("cull serve with two workers, driven by cull scan, status and groups")
    func daemons() async throws {
        let scratch = try Scratch()
        let library = scratch.path + "/library"
        let entries = try await writeLibrary(to: library, scenes: 4, width: 480, height: 360)
        let ports = try freePorts(2)
        let work = "tcp://127.0.0.1:\(ports[0])", control = "tcp://127.0.0.1:\(ports[1])"
        // A watchdog in each daemon reports any stall of the cooperative pool over 250 ms:
        // the runtime check that nothing blocks it (rule 1).
        let watchdog = ["CULL_POOL_WATCHDOG_MS": "250"]
        let serve = try Child("cull", ["serve", "--db", scratch.path + "/serve.sqlite", "--work", work, "--control", control,
                                       "--heartbeat-ms", "200", "--job-size", "4"], environment: watchdog, in: scratch.path)
        var workers: [Child] = []
        for index in 0..<2 {
            workers.append(try Child("cull-worker", ["--connect", work, "--id", "it-worker-\(index)", "--heartbeat-ms", "200",
                                                     "--compute-threads", "1"], environment: watchdog, in: scratch.path))
        }
        defer {
            for child in workers + [serve] { child.signal(SIGKILL) }
        }

        // Wait until both workers have joined.
        var joined = 0
        try? await waitUntil("both workers joined", timeout: .seconds(60)) {
            let status = try await runCommand("cull", ["workers", "--control", control, "--timeout", "2"], in: scratch.path)
            joined = status.stdout.components(separatedBy: "it-worker-").count - 1
            return joined == 2
        }
        #expect(joined == 2, "serve stderr: \(serve.stderr)")

        let scan = try await runCommand("cull", ["scan", library, "--wait", "--control", control], in: scratch.path)
        #expect(scan.status == 0, "scan stderr: \(scan.stderr)\nserve: \(serve.stderr)")
        #expect(scan.stdout.contains("done: \(entries.count) files, 1 failed"))

        let status = try await runCommand("cull", ["status", "--format", "json", "--control", control], in: scratch.path)
        #expect(status.status == 0)
        let reply = try Cull_V1_StatusReply(jsonString: status.stdout)
        // The older spelling, and `cull workers`, give the same message.
        let alias = try await runCommand("cull", ["status", "--json", "--control", control], in: scratch.path)
        #expect(try Cull_V1_StatusReply(jsonString: alias.stdout).scans == reply.scans)
        let workerList = try await runCommand("cull", ["workers", "--format", "JSON", "--control", control], in: scratch.path)
        #expect(try Cull_V1_StatusReply(jsonString: workerList.stdout).workers.map(\.workerID).sorted() == reply.workers.map(\.workerID).sorted())
        #expect(reply.scans.first?.state == "done")
        #expect(reply.scans.first?.total == Int64(entries.count))
        #expect(reply.workers.count == 2)
        // Every file once, and the near-group members analysed from their camera thumbnails
        // once more from their main image.
        let verified = UInt64(reply.scans.first?.verifying ?? 0)
        #expect(verified > 0)
        #expect(reply.workers.reduce(0) { $0 + $1.photosDone } == UInt64(entries.count) + verified, "both workers' results add up")
        #expect(reply.counters.resultsStale == 0)

        let groups = try await runCommand("cull", ["groups", "--format", "csv", "--control", control], in: scratch.path)
        #expect(groups.status == 0)
        checkGroups(try GroupsCSV(groups.stdout), entries: entries)
        // `cull apply` reads the same groups from the daemon: every copy would move, no keeper.
        let dryRun = try await runCommand("cull", ["apply", "--control", control, "--move-to", scratch.path + "/culled", "--dry-run"], in: scratch.path)
        #expect(dryRun.status == 0, "stderr: \(dryRun.stderr)")
        let couldGo = try GroupsCSV(groups.stdout).rows.filter { $0["keeper"] == "0" && $0["kind"] != "similar" }.count
        #expect(dryRun.stdout.contains("would move \(couldGo) photos from "), "\(dryRun.stdout)")
        // `cull photos` asks the daemon too: the one file that is not a photo, and why.
        let failed = try await runCommand("cull", ["photos", "--status", "failed", "--control", control], in: scratch.path)
        #expect(failed.status == 0, "stderr: \(failed.stderr)")
        #expect(failed.stdout.split(separator: "\n").count == 1 && failed.stdout.contains("notes.txt  unsupported: "), "\(failed.stdout)")

        // Clean shutdown on SIGTERM, everyone, and no stall of the cooperative pool anywhere.
        for worker in workers {
            #expect(await worker.stop() == 0)
            #expect(!worker.stderr.contains("cooperative pool stalled"), "worker: \(worker.stderr)")
        }
        #expect(await serve.stop() == 0, "serve stderr: \(serve.stderr)")
        #expect(!serve.stderr.contains("cooperative pool stalled"), "serve: \(serve.stderr)")
    }

    @Test("a worker speaking another protocol version is told so, and the coordinator keeps going")
    func versionMismatch() async throws {
        let scratch = try Scratch()
        let ports = try freePorts(2)
        let work = "tcp://127.0.0.1:\(ports[0])", control = "tcp://127.0.0.1:\(ports[1])"
        let serve = try Child("cull", ["serve", "--db", scratch.path + "/serve.sqlite", "--work", work, "--control", control], in: scratch.path)
        defer { serve.signal(SIGKILL) }

        let context = try ZMQContext()
        let dealer = try SocketThread(name: "it.dealer", context: context, type: .dealer, logger: Logger(label: "it")) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.connect(work)
        }
        var frames = WireCodec.encode(.hello(.with { $0.workerID = "from-the-future"; $0.capacity = 1 }))
        frames[0][4] = 9
        dealer.send(frames)
        dealer.send([Array("garbage".utf8)])
        var answers: [Cull_V1_ProtocolError] = []
        let reader = Task { () -> [Cull_V1_ProtocolError] in
            var collected: [Cull_V1_ProtocolError] = []
            for await message in dealer.inbox {
                if case .protocolError(let error) = try? WireCodec.decode(message) { collected.append(error) }
                if collected.count == 2 { break }
            }
            return collected
        }
        let timer = Task { try await Task.sleep(for: .seconds(20)); reader.cancel() }
        answers = await reader.value
        timer.cancel()
        #expect(answers.map(\.code) == [.versionMismatch, .malformed])
        #expect(answers.first?.message.contains("version 9") == true)
        #expect(answers.first?.supportedVersion == 1)
        await dealer.shutdown()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { context.terminate(); done.resume() }
        }
        // Still answering.
        let status = try await runCommand("cull", ["status", "--format", "json", "--control", control], in: scratch.path)
        #expect(status.status == 0)
        #expect(try Cull_V1_StatusReply(jsonString: status.stdout).counters.protocolErrors == 2)
        #expect(await serve.stop() == 0)
    }
}
