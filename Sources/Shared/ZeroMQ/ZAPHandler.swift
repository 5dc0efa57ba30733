import CZeroMQ
import Foundation
import Logging
import Synchronization

/// Answers libzmq's authentication requests (ZAP, ZeroMQ RFC 27) for every CURVE server socket
/// of one context: a client whose public key is authorised is let in, under its key's name as
/// its ZeroMQ User-Id; any other client, and any other mechanism, is refused.
///
/// libzmq lets every client in when a CURVE server's context has no ZAP handler at all (the
/// draft option that would refuse them, ZMQ_ZAP_ENFORCE_DOMAIN, is not in Debian's libzmq). So
/// the handler must be bound before a CURVE socket binds, and must live as long as it: if its
/// thread ends unasked, `stopped()` returns and the owner shuts the process down (the
/// coordinator's `AuthenticationService`). While the handler is slow or stuck, handshakes wait
/// and time out: nobody is let in unchecked.
///
/// The handler's REP socket lives on a thread of its own (rule 1), polled with a 200 ms timeout
/// so that `shutdown()` is seen promptly (rule 3).
public final class ZAPHandler: Sendable {
    public static let endpoint = "inproc://zeromq.zap.01"

    private struct State {
        var stopping = false
        var stopped = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let keys: Mutex<[CurveKey: String]>
    private let state = Mutex(State())
    /// Refusals logged recently, by peer address and key: each is logged once a minute at most.
    private let refusalsLogged = Mutex<[String: ContinuousClock.Instant]>([:])
    private let logger: Logger

    /// Binds the handler's socket in `context` (on the calling thread: a blocking call) and
    /// starts its thread. `keys` maps each authorised public key to its name.
    public init(context: ZMQContext, keys: [CurveKey: String], logger: Logger) throws {
        self.keys = Mutex(keys)
        self.logger = logger
        let socket = try ZMQSocket(context: context, type: .reply)
        do {
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.bind(Self.endpoint)
        } catch {
            socket.close()
            throw error
        }
        let transfer = SocketTransfer(socket)
        let thread = Thread { [self] in self.run(transfer.take()) }
        thread.name = "cull.zap"
        thread.start()
    }

    /// Replaces the authorised keys: from the next handshake on (connections already made stay).
    public func authorize(_ keys: [CurveKey: String]) {
        self.keys.withLock { $0 = keys }
    }

    /// The name an authorised key goes by, if it is authorised.
    public func name(of key: CurveKey) -> String? {
        keys.withLock { $0[key] }
    }

    /// Stops the thread and closes the socket; resumes when it has. Safe to call more than once.
    public func shutdown() async {
        requestShutdown()
        await stopped()
    }

    /// Asks the thread to stop without waiting: for code on a thread of its own that then
    /// blocks in `zmq_ctx_term` until the socket is closed.
    public func requestShutdown() {
        state.withLock { $0.stopping = true }
    }

    /// Whether the thread has ended.
    public var hasStopped: Bool { state.withLock { $0.stopped } }

    /// Returns when the thread has ended, asked to or not.
    public func stopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.stopped { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Whether `shutdown()` was asked for (a thread that ended without it failed).
    public var wasAskedToStop: Bool { state.withLock { $0.stopping } }

    // MARK: the thread

    private func run(_ socket: ZMQSocket) {
        defer {
            socket.close()
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.stopped = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        while !state.withLock({ $0.stopping }) {
            var items = [zmq_pollitem_t(socket: socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
            let rc = zmq_poll(&items, 1, 200)
            if rc < 0 {
                if zmq_errno() == EINTR { continue }
                logger.critical("the authentication handler's poll failed: it stops", metadata: ["error": "\(ZMQError("zmq_poll"))"])
                return
            }
            guard rc > 0 else { continue }
            do {
                guard let request = try socket.receive() else { continue }
                _ = try socket.send(reply(to: request))
            } catch {
                logger.critical("the authentication handler's socket failed: it stops", metadata: ["error": "\(error)"])
                return
            }
        }
    }

    /// The reply to one ZAP request: version, request id, status code and text, user id, metadata.
    func reply(to request: [[UInt8]]) -> [[UInt8]] {
        // version, request id, domain, address, identity, mechanism, credentials…
        guard request.count >= 6, request[0] == Array("1.0".utf8) else {
            logger.warning("a malformed authentication request was refused", metadata: ["frames": "\(request.count)"])
            return [Array("1.0".utf8), request.count > 1 ? request[1] : [], Array("400".utf8), Array("malformed request".utf8), [], []]
        }
        let address = String(decoding: request[3], as: UTF8.self)
        let mechanism = String(decoding: request[5], as: UTF8.self)
        func answer(_ code: String, _ text: String, user: String = "") -> [[UInt8]] {
            [Array("1.0".utf8), request[1], Array(code.utf8), Array(text.utf8), Array(user.utf8), []]
        }
        guard mechanism == "CURVE", request.count >= 7, let key = CurveKey(bytes: request[6]) else {
            refused(address: address, key: nil, reason: "mechanism \(mechanism) without a CURVE key")
            return answer("400", "CURVE keys required")
        }
        guard let name = name(of: key) else {
            refused(address: address, key: key, reason: "key not authorised")
            return answer("400", "key not authorised")
        }
        logger.info("a connection authenticated", metadata: ["peer": "\(address)", "key": "\(name)"])
        return answer("200", "OK", user: name)
    }

    private func refused(address: String, key: CurveKey?, reason: String) {
        let subject = "\(address) \(key?.z85 ?? "-")"
        let now = ContinuousClock.now
        let log = refusalsLogged.withLock { logged -> Bool in
            if let last = logged[subject], now - last < .seconds(60) { return false }
            if logged.count >= 1024 { logged.removeAll() }  // bounded (rule 5): forget, log again
            logged[subject] = now
            return true
        }
        guard log else { return }
        logger.warning("a connection was refused", metadata: ["peer": "\(address)", "key": "\(key?.z85 ?? "none")", "reason": "\(reason)"])
    }
}
