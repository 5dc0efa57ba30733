import Analysis
@testable import Coordinator
import Foundation
import GRDB
import Logging
import ServiceLifecycle
import Shared
import Synchronization
import Testing

/// A whole coordinator in process: an in-memory store, an `InProcessTransport` for the work
/// channel and every service running in a `ServiceGroup`, driven by `FakeWorker`s. No socket,
/// no file but the library folder the walk reads.
final class CoordinatorHarness: Sendable {
    let store: CullStore
    let work: InProcessTransport
    let coordinator: Coordinator
    let library: String
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// - Parameter inbox: how many messages the coordinator's work inbox holds before `deliver`
    ///   refuses more (backpressure, as a full ZeroMQ queue).
    init(photos: Int, inbox: Int = 4096, configure: (inout CoordinatorConfiguration) -> Void = { _ in }) async throws {
        work = InProcessTransport(capacity: inbox)
        library = FileManager.default.temporaryDirectory.appendingPathComponent("cull-inproc-\(UUID().uuidString.prefix(8))").path
        try Self.writeLibrary(at: library, photos: photos)
        store = try await CullStore.inMemory(on: BlockingQueue(label: "test.store", limit: 1))
        var configuration = CoordinatorConfiguration(workEndpoint: "inproc://test", controlEndpoint: nil)
        configuration.jobSize = 1
        // Live fake workers beat every 20 ms; only a worker silent for 60 s is dead. The test
        // process shares two cooperative threads among every suite of a parallel run, and a few
        // synchronous suites can hold both for seconds; when the pool comes back, the deadline
        // monitor may look before the heartbeats queued meanwhile are read. At 5 s a CI run
        // lost a worker that way (no job ever came). The silent-worker test sets its own
        // liveness and advances the coordinator's clock instead of waiting.
        configuration.heartbeatInterval = .milliseconds(50)
        configuration.heartbeatLiveness = 1200
        configuration.reconcileInterval = .seconds(60)  // the tests check the event-driven paths
        configure(&configuration)
        coordinator = Coordinator(configuration: configuration, store: store, work: work, control: nil, host: "test",
                                  logger: Logger(label: "test.coordinator"))
        group = coordinator.serviceGroup(signals: [])
        running = Task { [group] in try await group.run() }
    }

    static func writeLibrary(at path: String, photos: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for index in 0..<photos {
            _ = FileManager.default.createFile(atPath: "\(path)/\(index).jpg", contents: Data([UInt8(index & 0xFF)]))
        }
    }

    /// Stops the services gracefully and removes the library folder.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        try? FileManager.default.removeItem(atPath: library)
    }

    func startScan(_ root: String? = nil) async throws -> ScanRecord {
        try await coordinator.startScan(root: root ?? library).scan
    }

    var counters: Cull_V1_Counters { coordinator.scheduler.counters }

    func analysedPhotos() async throws -> Int {
        try await store.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM photos WHERE status = 'analysed'") ?? 0 }
    }

    /// Waits until `condition` holds, polling every 10 ms; false at the deadline.
    func poll(timeout: Duration = .seconds(5), _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }
}

/// A scripted worker on the other side of the harness's work transport. Messages the
/// coordinator sends to other routing ids are kept for their own fake worker.
final class FakeWorker: Sendable {
    let id: String
    let harness: CoordinatorHarness
    private let mailbox: Mailbox
    private let beating = Mutex<Task<Void, Never>?>(nil)

    init(_ id: String, on harness: CoordinatorHarness, mailbox: Mailbox) {
        self.id = id
        self.harness = harness
        self.mailbox = mailbox
    }

    deinit { beating.withLock { $0?.cancel() } }

    /// Says HELLO with `capacity`, waits for WELCOME, and heartbeats every 20 ms from then on,
    /// as a live worker does (until `fallSilent`).
    static func join(_ id: String, capacity: UInt32, on harness: CoordinatorHarness, mailbox: Mailbox) async throws -> FakeWorker {
        let worker = FakeWorker(id, on: harness, mailbox: mailbox)
        worker.send(.hello(.with { $0.workerID = id; $0.capacity = capacity; $0.pipelineVersion = PhotoAnalyzer.pipelineVersion }))
        let welcome = try #require(await worker.next(timeout: .seconds(5)) { if case .welcome = $0 { true } else { false } })
        if case .welcome(let message) = welcome {
            #expect(message.pipelineVersion == PhotoAnalyzer.pipelineVersion, "WELCOME names the pipeline the coordinator keeps")
        }
        let transport = harness.work
        let frames = [Array(id.utf8)] + WireCodec.encode(.heartbeat(Cull_V1_Heartbeat()))
        worker.beating.withLock {
            $0 = Task {
                while !Task.isCancelled, !transport.isShutDown {
                    transport.deliver(frames)
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
        }
        return worker
    }

    /// Stops heartbeating and returns once the last heartbeat has been handed over: from now on
    /// the worker is silent.
    func fallSilent() async {
        let task = beating.withLock { task in
            defer { task = nil }
            task?.cancel()
            return task
        }
        await task?.value
    }

    func send(_ command: Cull_V1_Envelope.OneOf_Command) {
        precondition(harness.work.deliver([Array(id.utf8)] + WireCodec.encode(command)), "the coordinator's inbox is full")
    }

    /// The next message for this worker that `accept` takes, within `timeout`.
    func next(timeout: Duration, _ accept: @escaping @Sendable (Cull_V1_Envelope.OneOf_Command) -> Bool = { _ in true }) async -> Cull_V1_Envelope.OneOf_Command? {
        await mailbox.next(for: id, from: harness.work, timeout: timeout, accept)
    }

    /// The next JOB within `timeout`. Generous by default: a wait that succeeds returns at once,
    /// and a full parallel test run can starve this process for tens of seconds at its start.
    func nextJob(timeout: Duration = .seconds(30)) async -> Cull_V1_Job? {
        guard case .job(let job)? = await next(timeout: timeout, { if case .job = $0 { true } else { false } }) else { return nil }
        return job
    }

    /// A RESULT answering `job` with made-up features for each photo.
    static func result(for job: Cull_V1_Job, attempt: Int64? = nil, generation: Int64? = nil) -> Cull_V1_Result {
        result(for: job, attempt: attempt, generation: generation) { _ in .with { $0.sha256 = Data(repeating: 1, count: 32); $0.width = 8; $0.height = 8 } }
    }

    /// A RESULT answering `job` with `features(photoID)` for each photo.
    static func result(for job: Cull_V1_Job, attempt: Int64? = nil, generation: Int64? = nil,
                       features: (Int64) -> Cull_V1_Features) -> Cull_V1_Result {
        .with { result in
            result.jobID = job.jobID
            result.attempt = attempt ?? job.attempt
            result.generation = generation ?? job.generation
            result.outcomes = job.photos.map { photo in .with { $0.photoID = photo.photoID; $0.features = features(photo.photoID) } }
        }
    }

    /// Pipeline-3 features (no mirror hash or content box: a pipeline-4 worker may send those) of a made-up picture `look` (the same look, the same picture), with
    /// bytes of their own (`photoID`) and the given source.
    static func features(look: UInt64, photoID: Int64, source: Cull_V1_ImageSource) -> Cull_V1_Features {
        var random = SplitMix64(seed: look)
        return .with {
            $0.sha256 = Data((0..<32).map { UInt8(truncatingIfNeeded: photoID >> (8 * ($0 % 8))) ^ UInt8($0) })
            $0.phash = random.next()
            $0.dhash = random.next()
            $0.windowPhash = (0..<50).map { _ in random.next() }
            $0.thumbnail = Data((0..<1024).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            $0.width = 4000
            $0.height = 3000
            $0.format = "jpeg"
            $0.source = source
        }
    }
}

/// Sorts what the coordinator sends by routing id, so several fake workers can read their own.
final class Mailbox: Sendable {
    private let held = Mutex<[String: [Cull_V1_Envelope.OneOf_Command]]>([:])

    func next(for id: String, from transport: InProcessTransport, timeout: Duration,
              _ accept: @escaping @Sendable (Cull_V1_Envelope.OneOf_Command) -> Bool) async -> Cull_V1_Envelope.OneOf_Command? {
        if let found = take(for: id, accept) { return found }
        return await withTimeout(timeout) {
            while let message = await transport.sent.next() {
                guard message.count >= 2, let command = try? WireCodec.decode(message.dropFirst()) else { continue }
                let to = String(decoding: message[0], as: UTF8.self)
                if to == id && accept(command) { return command }
                self.held.withLock { $0[to, default: []].append(command) }
            }
            return nil
        }
    }

    private func take(for id: String, _ accept: (Cull_V1_Envelope.OneOf_Command) -> Bool) -> Cull_V1_Envelope.OneOf_Command? {
        held.withLock { held in
            guard let index = held[id]?.firstIndex(where: accept) else { return nil }
            return held[id]!.remove(at: index)
        }
    }
}
