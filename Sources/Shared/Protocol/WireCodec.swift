import SwiftProtobuf

/// Protocol constants and the framing of every message (docs/PROTOCOL.md).
///
/// A message is two frames (after any ROUTER routing frames): a 5-byte header, the ASCII
/// signature "CULL" and the version byte, then one protobuf `Envelope`.
public enum WireProtocol {
    public static let version: UInt8 = 1
    public static let signature: [UInt8] = Array("CULL".utf8)
    public static var header: [UInt8] { signature + [version] }
    /// Largest message a peer may send; sockets are set to refuse (and drop) anything larger.
    public static let maxMessageBytes: Int64 = 16 << 20
}

/// Why a received message was refused.
public enum ProtocolViolation: Error, Equatable, CustomStringConvertible, Sendable {
    case wrongFrameCount(Int)
    case notCull
    case versionMismatch(peerVersion: UInt8)
    case malformed(String)
    case emptyEnvelope

    public var description: String {
        switch self {
        case .wrongFrameCount(let count):
            "expected 2 frames (header, envelope), got \(count)"
        case .notCull:
            "the first frame is not a cull protocol header (\"CULL\" + version byte)"
        case .versionMismatch(let peer):
            "peer speaks cull protocol version \(peer), this side speaks version \(WireProtocol.version); run the same cull release on both sides"
        case .malformed(let reason):
            "the envelope is not valid protobuf: \(reason)"
        case .emptyEnvelope:
            "the envelope carries no command (unknown to this version?)"
        }
    }

    /// The code to answer a peer with.
    public var errorCode: Cull_V1_ProtocolError.Code {
        switch self {
        case .versionMismatch: .versionMismatch
        default: .malformed
        }
    }
}

/// Encodes and decodes the two frames of a cull message.
public enum WireCodec {
    public static func encode(_ envelope: Cull_V1_Envelope) -> [[UInt8]] {
        // Serializing a message built in code cannot fail (no required fields in proto3).
        let body: [UInt8] = (try? envelope.serializedBytes()) ?? []
        return [WireProtocol.header, body]
    }

    public static func encode(_ command: Cull_V1_Envelope.OneOf_Command) -> [[UInt8]] {
        var envelope = Cull_V1_Envelope()
        envelope.command = command
        return encode(envelope)
    }

    /// Decodes the two frames; `frames` excludes routing frames.
    public static func decode<Frames: Collection>(_ frames: Frames) throws(ProtocolViolation) -> Cull_V1_Envelope.OneOf_Command
    where Frames.Element == [UInt8] {
        guard frames.count == 2 else { throw .wrongFrameCount(frames.count) }
        let header = frames[frames.startIndex]
        let body = frames[frames.index(after: frames.startIndex)]
        guard header.count == 5, header.starts(with: WireProtocol.signature) else { throw .notCull }
        guard header[4] == WireProtocol.version else { throw .versionMismatch(peerVersion: header[4]) }
        let envelope: Cull_V1_Envelope
        do {
            var options = BinaryDecodingOptions()
            options.messageDepthLimit = 16
            envelope = try Cull_V1_Envelope(serializedBytes: body, options: options)
        } catch {
            throw .malformed("\(error)")
        }
        guard let command = envelope.command else { throw .emptyEnvelope }
        return command
    }
}

extension Cull_V1_Envelope.OneOf_Command {
    /// The command's name as in docs/PROTOCOL.md, for logs.
    public var name: String {
        switch self {
        case .hello: "HELLO"
        case .welcome: "WELCOME"
        case .job: "JOB"
        case .result: "RESULT"
        case .heartbeat: "HEARTBEAT"
        case .cancelJobs: "CANCEL_JOBS"
        case .disconnect: "DISCONNECT"
        case .protocolError: "PROTOCOL_ERROR"
        case .scanRequest: "SCAN"
        case .scanStarted: "SCAN_STARTED"
        case .statusRequest: "STATUS"
        case .statusReply: "STATUS_REPLY"
        case .cancelRequest: "CANCEL"
        case .cancelReply: "CANCEL_REPLY"
        case .groupsRequest: "GROUPS"
        case .groupsReply: "GROUPS_REPLY"
        case .photosRequest: "PHOTOS"
        case .photosReply: "PHOTOS_REPLY"
        case .controlError: "CONTROL_ERROR"
        }
    }
}
