@testable import Worker
import Analysis
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Testing

/// A whole worker in process: its services in a `ServiceGroup`, its transport an
/// `InProcessTransport` the test plays the coordinator on. Photos are real JPEGs the harness
/// writes into a folder of its own, removed by `stop()`.
final class WorkerHarness: Sendable {
    let transport = InProcessTransport()
    let worker: WorkerDaemon
    let folder: String
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    init(capacity: Int = 2, faults: [String: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cull-worker-test-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let configuration = WorkerConfiguration(
            endpoint: "inproc://test", workerID: "w-test", host: "test", capacity: capacity, fetchThreads: 2, computeThreads: 1,
            heartbeatInterval: .milliseconds(50), heartbeatLiveness: 100, maxAbandonedFetches: 16, parentProcess: nil)
        worker = WorkerDaemon(configuration: configuration, transport: transport, faults: FaultInjection(environment: faults),
                              logger: Logger(label: "test.worker"))
        group = ServiceGroup(configuration: .init(
            services: worker.services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            logger: Logger(label: "test.worker")))
        running = Task { [group] in try await group.run() }
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Writes a 64×48 JPEG; returns its path.
    func photo(_ name: String, seed: UInt64) throws -> String {
        let image = SyntheticPhoto.make(seed: seed, width: 64, height: 48)
        let bytes = try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: 90)
        let path = "\(folder)/\(name).jpg"
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw HarnessFailure("cannot write \(path)") }
        return path
    }

    func deliver(_ command: Cull_V1_Envelope.OneOf_Command) {
        precondition(transport.deliver(WireCodec.encode(command)), "the worker's inbox is full")
    }

    /// Plays the coordinator's side of HELLO.
    func welcome() async throws {
        _ = try #require(await next { if case .hello = $0 { true } else { false } })
        deliver(.welcome(.with { $0.coordinatorID = "test"; $0.heartbeatIntervalMs = 50; $0.heartbeatLiveness = 100 }))
    }

    /// The next message the worker sent that `accept` takes (heartbeats are skipped unless asked for).
    func next(timeout: Duration = .seconds(10), _ accept: @escaping @Sendable (Cull_V1_Envelope.OneOf_Command) -> Bool) async -> Cull_V1_Envelope.OneOf_Command? {
        let sent = transport.sent
        return await withTimeout(timeout) {
            while let message = await sent.next() {
                if let command = try? WireCodec.decode(message), accept(command) { return command }
            }
            return nil
        }
    }

    func nextResult(timeout: Duration = .seconds(10)) async -> Cull_V1_Result? {
        guard case .result(let result)? = await next(timeout: timeout, { if case .result = $0 { true } else { false } }) else { return nil }
        return result
    }

    static func job(_ id: Int64, attempt: Int64, photos: [(Int64, String)], fetchTimeoutMs: UInt32 = 10_000) -> Cull_V1_Job {
        .with { job in
            job.jobID = id
            job.attempt = attempt
            job.generation = 1
            job.fetchTimeoutMs = fetchTimeoutMs
            job.deadlineMs = 60_000
            job.options = .with { $0.minShortSide = 32; $0.maxPixels = 10_000_000; $0.maxFileBytes = 10 << 20; $0.usePreviews = true }
            job.photos = photos.map { photo in .with { $0.photoID = photo.0; $0.path = photo.1 } }
        }
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
