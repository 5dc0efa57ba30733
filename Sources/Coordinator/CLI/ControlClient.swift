import CZeroMQ
import Foundation
import Logging
import Shared

/// Talks to a running `cull serve` over its control endpoint: one request, one reply, with a
/// deadline (rule 3): a daemon that is not there yields a clear error, not a hang.
struct ControlClient: Sendable {
    let endpoint: String
    let timeout: Duration

    func request(_ command: Cull_V1_Envelope.OneOf_Command) async throws -> Cull_V1_Envelope.OneOf_Command {
        let logger = Logger(label: "cull.control-client")
        let endpoint = self.endpoint
        if let problem = EndpointProbe.problem(with: endpoint) { throw CLIError("--control / CULL_CONTROL: \(problem)") }
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
                --control ENDPOINT / CULL_CONTROL.
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
