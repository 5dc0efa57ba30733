import CZeroMQ
import Foundation
import Logging
import Shared

/// Talks to a running `cull serve` over its control endpoint: one request, one reply, with a
/// deadline (rule 3): a daemon that is not there yields a clear error, not a hang.
///
/// With key files (`--key`, `--server-key`), a TCP endpoint is spoken to with CURVE: the daemon
/// serves a control endpoint other machines reach only so, to authorised keys.
struct ControlClient: Sendable {
    let endpoint: String
    let timeout: Duration
    /// This client's secret key and the daemon's public key, as files; both or neither.
    var keyFiles: (secret: String?, server: String?) = (nil, nil)

    /// The keys to speak CURVE with, read from their files; nil for an ipc:// endpoint or
    /// without keys.
    func curveKeys() throws -> (pair: CurveKeyPair, server: CurveKey)? {
        guard endpoint.hasPrefix("tcp://") else { return nil }
        switch keyFiles {
        case (nil, nil): return nil
        case (let secret?, let server?):
            do {
                return (try CurveKeyFiles.readSecret(secret), try CurveKeyFiles.readPublic(server))
            } catch let failure as CurveKeyFiles.Failure {
                throw CLIError(failure.description)
            }
        default:
            throw CLIError("give both --key (this client's secret key) and --server-key (the daemon's public key), or neither (CULL_KEY, CULL_SERVER_KEY)")
        }
    }

    func request(_ command: Cull_V1_Envelope.OneOf_Command) async throws -> Cull_V1_Envelope.OneOf_Command {
        let logger = Logger(label: "cull.control-client")
        let endpoint = self.endpoint
        if let problem = EndpointProbe.problem(with: endpoint) { throw CLIError("--control / CULL_CONTROL: \(problem)") }
        let client = self
        let curve = try await onOwnThread { try client.curveKeys() }
        // Nothing listening is known in milliseconds; the request's deadline is for a daemon that is there but busy or hung.
        let probeLimit = min(timeout, .seconds(2))
        if case .refused(let why) = try await onOwnThread({ EndpointProbe.probe(endpoint, limit: probeLimit) }) {
            throw CLIError("""
                \(why). Is cull serve running? Start it with `cull serve` (or `systemctl start cull`), or point at it with \
                --control ENDPOINT / CULL_CONTROL.
                """)
        }
        // Creating a context and connecting are blocking calls: a thread of their own.
        let (context, socket) = try await onOwnThread { () throws -> (ZMQContext, SocketThread) in
            let context = try ZMQContext()
            do {
                let socket = try SocketThread(name: "cull.control-client", context: context, type: .dealer, inboxCapacity: 4, logger: logger) { socket in
                    try socket.setOption(ZMQ_LINGER, Int32(0))
                    try socket.setOption(ZMQ_MAXMSGSIZE, Int64(256 << 20))
                    if let curve {
                        try socket.setOption(ZMQ_CURVE_SERVERKEY, bytes: curve.server.bytes)
                        try socket.setOption(ZMQ_CURVE_PUBLICKEY, bytes: curve.pair.publicKey.bytes)
                        try socket.setOption(ZMQ_CURVE_SECRETKEY, bytes: curve.pair.secretKey.bytes)
                    }
                    try socket.connect(endpoint)
                }
                return (context, socket)
            } catch let error as ZMQError {
                context.terminate()
                throw CLIError("cannot use control endpoint \(endpoint): \(error.message)")
            }
        }
        socket.send(WireCodec.encode(command))
        let reply = await withTimeout(timeout) { await socket.inbox.next() }
        await socket.shutdown()
        try? await onOwnThread { context.terminate() }
        guard let reply else {
            throw CLIError("""
                no answer from cull serve at \(endpoint) within \(timeout.millisecondsDescription). \
                Is it running? Start it with `cull serve` (or `systemctl start cull`), or point at it with \
                --control ENDPOINT / CULL_CONTROL.\(curve == nil && endpoint.hasPrefix("tcp://")
                    ? " A daemon whose control endpoint other machines reach answers only clients with an authorised key: give --key and --server-key (CULL_KEY, CULL_SERVER_KEY)."
                    : curve != nil ? " With keys: is this key's .public file in the daemon's --authorized folder, and --server-key the daemon's public key?" : "")
                """)
        }
        let answer: Cull_V1_Envelope.OneOf_Command
        do {
            answer = try WireCodec.decode(reply)
        } catch {
            throw CLIError("cull serve at \(endpoint) sent a reply this cull cannot read: \(error)")
        }
        switch answer {
        case .controlError(let error):
            throw CLIError(error.message)
        case .protocolError(let error):
            throw CLIError("cull serve refused the request: \(error.message)")
        default:
            return answer
        }
    }
}

/// An error for the person at the terminal: printed as is, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension CLIError {
    static let unexpectedAnswer = CLIError(
        "cull serve answered with something this cull did not ask for; run the same cull release on both sides (`cull --version`)")
}
