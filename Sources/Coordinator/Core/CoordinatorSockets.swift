import CZeroMQ
import Foundation
import Logging
import Shared
import Synchronization

/// The coordinator's ZeroMQ side: one context, a ROUTER socket for workers and one for
/// control clients, each on its own thread (`SocketThread`).
///
/// Creating a context and binding are blocking calls, so `open` runs them on a thread of its
/// own and throws a message that says what to do when an address is taken; `close` shuts the
/// sockets (idempotent) and terminates the context, which blocks until they are closed, also
/// on a thread of its own.
struct CoordinatorSockets: Sendable {
    let context: ZMQContext
    let work: SocketThread
    let control: SocketThread?
    /// With CURVE: the handler that lets in only authorised keys (bound before the work socket).
    let authentication: ZAPHandler?
    /// With CURVE: the work socket's failed handshakes (a client without keys, or with another
    /// coordinator's public key, never reaches the handler), logged once a minute.
    let handshakes: SocketMonitor?

    /// CURVE for the work endpoint: the coordinator's key pair and the authorised client keys.
    struct Curve: Sendable {
        var keyPair: CurveKeyPair
        var authorized: [CurveKey: String]
    }

    /// The endpoints bound, as libzmq resolved them (work first).
    var boundEndpoints: [String] { work.boundEndpoints + (control?.boundEndpoints ?? []) }

    static func open(work: String, control: String?, curve: Curve? = nil, logger: Logger) async throws -> CoordinatorSockets {
        try await Shared.onOwnThread {
            let context = try ZMQContext()
            // The handler first: a CURVE socket bound in a context without one lets everyone in.
            let authentication: ZAPHandler?
            do {
                authentication = try curve.map { try ZAPHandler(context: context, keys: $0.authorized, logger: logger) }
            } catch {
                context.terminate()
                throw CoordinatorError(description: "cannot start the authentication handler: \(error)")
            }
            let handshakes = Mutex<SocketMonitor?>(nil)
            do {
                let workSocket = try SocketThread(name: "cull.work", context: context, type: .router, inboxCapacity: 4096, logger: logger) { socket in
                    try configureRouter(socket)
                    if let curve {
                        // One live connection per worker id: with keys, a second connection
                        // claiming an id that is connected is held aside, not handed the id (another
                        // key could otherwise take over a running worker's jobs). A restarted worker
                        // gets its id back once the old connection is gone, which ZMTP heartbeats
                        // notice within 10 s even when its host vanished without closing it.
                        try socket.setOption(ZMQ_ROUTER_HANDOVER, Int32(0))
                        try socket.setOption(ZMQ_HEARTBEAT_IVL, Int32(2000))
                        try socket.setOption(ZMQ_HEARTBEAT_TIMEOUT, Int32(10_000))
                        try socket.setOption(ZMQ_CURVE_SERVER, Int32(1))
                        try socket.setOption(ZMQ_CURVE_SECRETKEY, bytes: curve.keyPair.secretKey.bytes)
                        try socket.setOption(ZMQ_ZAP_DOMAIN, bytes: Array("cull".utf8))
                        let failures = FailedHandshakeLog(logger: logger)
                        handshakes.withLock { $0 = try? SocketMonitor(
                            socket: socket, context: context, events: ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL,
                            name: "cull.work", logger: logger, handle: failures.record) }
                    }
                    try socket.bind(work)
                }
                do {
                    let controlSocket = try control.map { endpoint in
                        let file = ControlSocketFile.path(of: endpoint)
                        if let file { try ControlSocketFile.prepare(file) }
                        let thread = try SocketThread(name: "cull.control", context: context, type: .router, logger: logger) { socket in
                            try configureRouter(socket)
                            // A control endpoint other machines reach speaks CURVE, to the same
                            // authorised keys as the work endpoint (workers' and clients').
                            if let curve, !Endpoints.isLocal(endpoint) {
                                try socket.setOption(ZMQ_CURVE_SERVER, Int32(1))
                                try socket.setOption(ZMQ_CURVE_SECRETKEY, bytes: curve.keyPair.secretKey.bytes)
                                try socket.setOption(ZMQ_ZAP_DOMAIN, bytes: Array("cull".utf8))
                            }
                            try socket.bind(endpoint)
                        }
                        if let file {
                            do {
                                let mode = try ControlSocketFile.restrict(file)
                                logger.info("control socket permissions set", metadata: ["path": "\(file)", "mode": "\(mode)"])
                            } catch {
                                thread.requestShutdown()
                                throw error
                            }
                        }
                        return thread
                    }
                    return CoordinatorSockets(context: context, work: workSocket, control: controlSocket, authentication: authentication,
                                              handshakes: handshakes.withLock { $0 })
                } catch {
                    workSocket.requestShutdown()
                    throw error
                }
            } catch {
                authentication?.requestShutdown()
                handshakes.withLock { $0?.requestShutdown() }
                context.terminate()
                guard let error = error as? ZMQError else { throw error }
                throw CoordinatorError(description: "cannot listen on \(error.operation.replacingOccurrences(of: "bind ", with: "")): \(error.message) (is another `cull serve` running? pass --work / --control)")
            }
        }
    }

    func close() async {
        await work.shutdown()
        await control?.shutdown()
        await authentication?.shutdown()
        handshakes?.requestShutdown()
        let context = self.context
        try? await Shared.onOwnThread { context.terminate() }
    }

    private static func configureRouter(_ socket: ZMQSocket) throws {
        // Sends to a peer that is gone fail at once instead of vanishing silently.
        try socket.setOption(ZMQ_ROUTER_MANDATORY, Int32(1))
        // A worker that reconnects with the same id takes over its old routing entry.
        try socket.setOption(ZMQ_ROUTER_HANDOVER, Int32(1))
        try socket.setOption(ZMQ_MAXMSGSIZE, WireProtocol.maxMessageBytes)
        try socket.setOption(ZMQ_LINGER, Int32(500))
        try socket.setOption(ZMQ_SNDHWM, Int32(10_000))
        try socket.setOption(ZMQ_RCVHWM, Int32(10_000))
    }
}

/// Failed CURVE handshakes on the work endpoint, logged once a minute at most: a worker without
/// keys, or with another coordinator's public key, fails before the authentication handler
/// sees it.
final class FailedHandshakeLog: Sendable {
    private let logger: Logger
    private let throttle = LogThrottle(perWindow: 1, window: .seconds(60))

    init(logger: Logger) { self.logger = logger }

    func record(_ event: SocketMonitor.Event) {
        throttle.warning(logger, "a connection was refused: its CURVE handshake failed (a worker without --key, or with another coordinator's public key)",
                         metadata: ["endpoint": "\(event.endpoint)", "error": "\(event.value)"])
    }
}
