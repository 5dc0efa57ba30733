import Foundation
import Shared
import Testing

@Suite("Wire codec", .timeLimit(.minutes(5)))
struct WireCodecTests {
    @Test("every command survives a round trip")
    func roundTrips() throws {
        var job = Cull_V1_Job()
        job.jobID = 42
        job.generation = 7
        job.attempt = 9_000_000_001
        job.fetchTimeoutMs = 30_000
        job.deadlineMs = 300_000
        job.options.minShortSide = 256
        job.options.maxPixels = 200_000_000
        job.photos = [.with { $0.photoID = 1; $0.path = "/photos/a b,c.jpg" }, .with { $0.photoID = 2; $0.path = "/photos/é.jpg" }]

        var result = Cull_V1_Result()
        result.jobID = 42
        result.generation = 7
        result.attempt = 9_000_000_001
        result.outcomes = [
            .with { $0.photoID = 1; $0.features = .with { $0.sha256 = Data(repeating: 0xAB, count: 32); $0.phash = .max; $0.dhash = 0x0123_4567_89AB_CDEF; $0.width = 4032; $0.height = 3024 } },
            .with { $0.photoID = 2; $0.failure = .with { $0.kind = .corrupt; $0.message = "/photos/é.jpg: truncated" } },
        ]

        let commands: [Cull_V1_Envelope.OneOf_Command] = [
            .hello(.with { $0.workerID = "host:1:x"; $0.capacity = 4; $0.pipelineVersion = 1; $0.formats = ["jpeg"] }),
            .welcome(.with { $0.coordinatorID = "c"; $0.heartbeatIntervalMs = 1000; $0.heartbeatLiveness = 5 }),
            .job(job),
            .result(result),
            .heartbeat(.with { $0.inFlightPhotos = 3; $0.abandonedFetches = 1 }),
            .cancelJobs(.with { $0.jobIds = [1, 2, 3]; $0.reason = "cancelled" }),
            .disconnect(.with { $0.reason = "bye"; $0.retry = true }),
            .protocolError(.with { $0.code = .versionMismatch; $0.supportedVersion = 1 }),
            .scanRequest(.with { $0.root = "/photos" }),
            .groupsReply(.with { $0.groups = [.with { $0.groupID = 1; $0.kind = "near"; $0.members = [.with { $0.path = "/p"; $0.keeper = true }] }] }),
        ]
        for command in commands {
            let frames = WireCodec.encode(command)
            #expect(frames.count == 2)
            #expect(frames[0] == Array("CULL".utf8) + [WireProtocol.version])
            let decoded = try WireCodec.decode(frames)
            #expect(decoded == command, "\(command.name) changed on the way")
        }
    }

    @Test("a peer on another protocol version is named as such")
    func versionMismatch() {
        var frames = WireCodec.encode(.heartbeat(Cull_V1_Heartbeat()))
        frames[0][4] = 2
        #expect(throws: ProtocolViolation.versionMismatch(peerVersion: 2)) { try WireCodec.decode(frames) }
        #expect(ProtocolViolation.versionMismatch(peerVersion: 2).description.contains("version 2"))
        #expect(ProtocolViolation.versionMismatch(peerVersion: 2).errorCode == .versionMismatch)
    }

    @Test("frames that are not cull messages are refused, not trusted")
    func malformed() {
        #expect(throws: ProtocolViolation.wrongFrameCount(1)) { try WireCodec.decode([[1, 2, 3]]) }
        #expect(throws: ProtocolViolation.notCull) { try WireCodec.decode([Array("HTTP/".utf8), []]) }
        #expect(throws: ProtocolViolation.emptyEnvelope) { try WireCodec.decode([WireProtocol.header, []]) }
        // A field 1 (hello) claiming 1000 bytes with 2 present.
        do {
            _ = try WireCodec.decode([WireProtocol.header, [0x0A, 0xE8, 0x07, 0x01, 0x02]])
            Issue.record("a truncated envelope decoded")
        } catch {
            guard case .malformed = error else { Issue.record("expected malformed, got \(error)"); return }
        }
    }

    @Test("random bytes never crash the decoder")
    func fuzz() {
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<64, using: &generator)
            let body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let frames = Bool.random(using: &generator) ? [WireProtocol.header, body] : [body]
            do { _ = try WireCodec.decode(frames) } catch { refused += 1 }
        }
        #expect(refused > 0)
    }
}
