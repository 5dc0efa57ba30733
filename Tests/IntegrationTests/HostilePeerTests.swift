import Analysis
import CZeroMQ
import Foundation
import GRDB
import Shared
import Testing

@Suite("Hostile and late peers", .serialized, .timeLimit(.minutes(5)))
struct HostilePeerTests {
    func fakeWorker(_ cluster: Cluster, id: String) async throws -> FakePeer {
        let peer = try FakePeer(dealerTo: cluster.work, id: id)
        peer.send(.hello(.with { $0.workerID = id; $0.capacity = 1; $0.pipelineVersion = PhotoAnalyzer.pipelineVersion }))
        guard case .welcome = await peer.next(timeout: .seconds(10), { if case .welcome = $0 { true } else { false } }) else {
            throw HarnessError("no WELCOME")
        }
        return peer
    }

    func features(for job: Cull_V1_Job) -> Cull_V1_Result {
        .with { result in
            result.jobID = job.jobID
            result.generation = job.generation
            result.attempt = job.attempt
            result.outcomes = job.photos.map { photo in
                .with { $0.photoID = photo.photoID; $0.features = .with { $0.sha256 = Data(repeating: 7, count: 32); $0.width = 1; $0.height = 1 } }
            }
        }
    }

    @Test("a late result for a cancelled scan is dropped and counted, never stored", arguments: ["cancel", "supersede"])
    func lateResultIsFenced(ending: String) async throws {
        let cluster = try Cluster(serveArguments: ["--liveness", "100"])
        let library = cluster.scratch.path + "/lib"
        _ = try await writeLibrary(to: library, scenes: 1, width: 64, height: 48, edits: [.original, .resized], extras: false)
        try cluster.startServe()
        try await cluster.waitForWorkers(0)
        let peer = try await fakeWorker(cluster, id: "late-worker")
        let scan = try await cluster.startScan(library)
        guard case .job(let job) = await peer.next(timeout: .seconds(10), { if case .job = $0 { true } else { false } }) else {
            throw HarnessError("no JOB")
        }
        if ending == "cancel" {
            #expect(try await cluster.cull(["cancel", "\(scan)"]).status == 0)
        } else {
            _ = try await cluster.startScan(library)
        }
        // This worker ignores the cancel and answers anyway, late.
        peer.send(.result(features(for: job)))
        var stale: UInt64 = 0
        try? await waitUntil("the late result counted", timeout: .seconds(30)) {
            stale = try await cluster.status()?.counters.resultsStale ?? 0
            return stale > 0
        }
        #expect(stale == 1, "the late result was counted as stale")
        let written = try await cluster.query { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photos WHERE status = 'analysed'") ?? -1
        }
        #expect(written == 0, "and nothing of it was stored")
        let ended = try #require(try await cluster.status()?.scans.first { $0.scanID == scan })
        #expect(ended.state == (ending == "cancel" ? "cancelled" : "superseded"))
        #expect(ended.groups == 0)
        await peer.close()
    }

    @Test("a worker's outcomes are checked: one for a photo not in the job is dropped, malformed features and WORKER_LOST become internal failures, all counted")
    func outcomesAreChecked() async throws {
        let cluster = try Cluster(serveArguments: ["--liveness", "100"])
        let library = cluster.scratch.path + "/lib"
        _ = try await writeLibrary(to: library, scenes: 1, width: 64, height: 48, edits: [.original, .resized, .recompressed], extras: false)
        try cluster.startServe()
        try await cluster.waitForWorkers(0)
        let peer = try await fakeWorker(cluster, id: "sloppy-worker")
        _ = try await cluster.startScan(library)
        guard case .job(let job) = await peer.next(timeout: .seconds(10), { if case .job = $0 { true } else { false } }) else {
            throw HarnessError("no JOB")
        }
        try #require(job.photos.count == 3, "one job of the three photos")
        var result = features(for: job)
        result.outcomes[0].features.sha256 = Data(repeating: 1, count: 5)
        result.outcomes[1].failure = .with { $0.kind = .workerLost; $0.message = "not mine to say" }
        result.outcomes.append(.with { $0.photoID = 999_999; $0.features = result.outcomes[2].features })
        peer.send(.result(result))

        var refused: UInt64 = 0
        try? await waitUntil("three outcomes refused", timeout: .seconds(30)) {
            refused = try await cluster.status()?.counters.outcomesRejected ?? 0
            return refused >= 3
        }
        #expect(refused == 3, "three outcomes refused and counted")
        let rows = try await cluster.query { db in
            try Row.fetchAll(db, sql: "SELECT id, status, error_kind, error_message FROM photos ORDER BY id").map { row in
                (id: row["id"] as Int64, status: row["status"] as String, kind: row["error_kind"] as String? ?? "", message: row["error_message"] as String? ?? "")
            }
        }
        func row(_ id: Int64) -> (id: Int64, status: String, kind: String, message: String)? { rows.first { $0.id == id } }
        let malformed = try #require(row(job.photos[0].photoID)), lost = try #require(row(job.photos[1].photoID))
        #expect(malformed.status == "failed" && malformed.kind == "internal")
        #expect(malformed.message.contains("SHA-256 of 5 bytes"))
        #expect(lost.status == "failed" && lost.kind == "internal")
        #expect(lost.message.contains("worker_lost"))
        #expect(row(job.photos[2].photoID)?.status == "analysed")
        #expect(rows.count == 3, "nothing stored for the photo that was not the job's")
        #expect(cluster.serve?.stderr.contains("refused outcomes a worker sent") == true)
        await peer.close()
        #expect(await cluster.serve?.stop() == 0)
    }

    @Test("100,000 random and mutated frames each: the coordinator and a worker survive and still work")
    func fuzz() async throws {
        let cluster = try Cluster(serveArguments: ["--liveness", "5"])
        let library = cluster.scratch.path + "/lib"
        let entries = try await writeLibrary(to: library, scenes: 2, width: 160, height: 120)
        try cluster.startServe()
        try await cluster.waitForWorkers(0)

        let templates: [Cull_V1_Envelope.OneOf_Command] = [
            .hello(.with { $0.workerID = "fuzz"; $0.capacity = 2 }),
            .result(.with { $0.jobID = 1; $0.attempt = 1; $0.generation = 1; $0.outcomes = [.with { $0.photoID = 1; $0.failure = .with { $0.kind = .corrupt } }] }),
            .heartbeat(.with { $0.inFlightPhotos = 1 }),
            .protocolError(.with { $0.code = .malformed }),
            .job(.with { $0.jobID = 1; $0.attempt = 1; $0.fetchTimeoutMs = 100; $0.photos = [.with { $0.photoID = 1; $0.path = "/nonexistent/x.jpg" }] }),
            .cancelJobs(.with { $0.jobIds = [1] }),
            .welcome(.with { $0.heartbeatIntervalMs = 1000; $0.heartbeatLiveness = 5 }),
        ]

        // 1. At the coordinator's work endpoint.
        let fuzzer = try FakePeer(dealerTo: cluster.work, id: "fuzzer")
        var frames = FrameFuzzer(templates: templates)
        let drain = Task { while await fuzzer.socket.inbox.next() != nil {} }
        var sent = 0
        while sent < 100_000 {
            if fuzzer.socket.send(frames.next()) { sent += 1 } else { try await Task.sleep(for: .milliseconds(1)) }
        }

        // 2. At a real worker, from a fake coordinator.
        let workerSide = try await fuzzWorker(cluster: cluster, templates: templates, count: 100_000, photo: entries[0].path)
        #expect(workerSide.survived, "the worker survived: \(workerSide.detail)")
        #expect(workerSide.analysedAfterwards, "and still analysed a real photo afterwards: \(workerSide.detail)")

        // The coordinator works through its inbox at its own pace: poll until it has counted them.
        var reply: Cull_V1_StatusReply?
        try? await waitUntil("the protocol errors counted", timeout: .seconds(60)) {
            reply = try? await cluster.status()
            return (reply?.counters.protocolErrors ?? 0) > 1_000
        }
        drain.cancel()
        await fuzzer.close()
        let answered = try #require(reply, "the coordinator still answers: \(cluster.serve?.stderr.suffix(2000) ?? "")")
        #expect(answered.counters.protocolErrors > 1_000)

        // And it still does its job with a real worker.
        try cluster.startWorker(0)
        try await cluster.waitForWorkers(1)
        let scan = try await cluster.startScan(library)
        let done = try await cluster.waitFor(scan: scan, timeout: .seconds(60)) { $0.state != "running" }
        #expect(done.state == "done")
        #expect(try await cluster.groupsCSV(scan: scan).partition.count == 2)
        #expect(await cluster.serve?.stop() == 0)
    }

    /// Sends `count` fuzzed frames to a real worker through a ROUTER the test binds, then a real
    /// JOB; the worker must neither crash nor stop working.
    func fuzzWorker(cluster: Cluster, templates: [Cull_V1_Envelope.OneOf_Command], count: Int, photo: String) async throws -> (survived: Bool, analysedAfterwards: Bool, detail: String) {
        let router = try FakeRouter()
        let worker = try Child("cull-worker", ["--connect", router.endpoint, "--id", "fuzzed-worker", "--heartbeat-ms", "100"],
                               environment: ["CULL_POOL_WATCHDOG_MS": "1000"], in: cluster.scratch.path)
        defer { worker.signal(SIGKILL) }
        guard let identity = await router.awaitHello(timeout: .seconds(10)) else { return (false, false, "no HELLO: \(worker.stderr)") }
        var frames = FrameFuzzer(templates: templates)
        var sent = 0
        while sent < count {
            let message = frames.next()
            // A genuine goodbye would rightly end the worker; the fuzzer does not send one.
            if case .disconnect? = try? WireCodec.decode(message) { continue }
            if router.socket.send([identity] + message) { sent += 1 } else { try await Task.sleep(for: .milliseconds(1)) }
            if sent % 5_000 == 0, let status = await worker.wait(timeout: .zero) {
                return (false, false, "exited \(status) after \(sent) frames: \(worker.stderr.suffix(2000))")
            }
        }
        router.socket.send([identity] + WireCodec.encode(.job(.with { job in
            job.jobID = 424_242; job.generation = 1; job.attempt = 1; job.fetchTimeoutMs = 5_000
            job.photos = [.with { $0.photoID = 1; $0.path = photo }]
        })))
        let result = await router.awaitResult(jobID: 424_242, timeout: .seconds(60))
        let alive = await worker.wait(timeout: .zero) == nil
        let ok = result?.outcomes.first?.features.width == 160
        await router.close()
        return (alive, ok, "alive \(alive), result \(String(describing: result)), stderr \(worker.stderr.suffix(1500))")
    }
}

/// A ROUTER the test binds, playing coordinator.
final class FakeRouter: Sendable {
    let context: ZMQContext
    let socket: SocketThread
    let endpoint: String

    init() throws {
        context = try ZMQContext()
        socket = try SocketThread(name: "it.router", context: context, type: .router, inboxCapacity: 256, logger: .init(label: "it")) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.bind("tcp://127.0.0.1:*")
        }
        endpoint = socket.boundEndpoints.first ?? ""
    }

    func awaitHello(timeout: Duration) async -> [UInt8]? {
        await first(timeout: timeout) { message, command in
            if case .hello = command {
                self.socket.send([message[0]] + WireCodec.encode(.welcome(.with { $0.heartbeatIntervalMs = 100; $0.heartbeatLiveness = 1000 })))
                return message[0]
            }
            return nil
        }
    }

    func awaitResult(jobID: Int64, timeout: Duration) async -> Cull_V1_Result? {
        await first(timeout: timeout) { _, command in
            if case .result(let result) = command, result.jobID == jobID { return result }
            return nil
        }
    }

    private func first<T: Sendable>(timeout: Duration, _ match: @escaping @Sendable ([[UInt8]], Cull_V1_Envelope.OneOf_Command) -> T?) async -> T? {
        await firstMessage(in: socket.inbox, timeout: timeout) { message in
            guard message.count == 3, let command = try? WireCodec.decode(message.dropFirst()) else { return nil }
            return match(message, command)
        }
    }

    func close() async {
        await socket.shutdown()
        let context = self.context
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { context.terminate(); done.resume() }
        }
    }
}
