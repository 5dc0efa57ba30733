import CZeroMQ
import DequeModule
import Foundation
import Logging
import Synchronization

/// Owns one ZeroMQ socket on a dedicated thread and bridges it to async code.
///
/// ZeroMQ sockets are single-threaded and `zmq_poll` blocks, so neither may touch the
/// cooperative pool (rule 1). The thread here is the only one that touches the socket:
/// - async code sends by appending to a Mutex-guarded, bounded outbox and poking a pipe the
///   thread polls beside the socket (the wake-up);
/// - received messages go into a bounded `MessageInbox`, read as an `AsyncSequence`. While the
///   inbox is full the thread stops reading, so ZeroMQ's high-water marks push back on peers.
///
/// `shutdown()` closes the socket on its own thread and resumes when the thread has exited.
public final class SocketThread: Sendable {
    public typealias Message = [[UInt8]]

    private struct Outbox {
        var queue: Deque<Message> = []
        var stopping = false
        var stopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    public let name: String
    public let inbox: MessageInbox<Message>
    public let outboxCapacity: Int
    /// The endpoints bound, as resolved by libzmq ("tcp://127.0.0.1:40123").
    public let boundEndpoints: [String]
    private let outbox = Mutex(Outbox())
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let droppedSends = Atomic<Int>(0)
    /// On an authenticated ROUTER: each peer's ZAP User-Id (its key's name), by routing id.
    /// Bounded (rule 5): past `maxUserIDs` peers it starts over, and peers are looked up again
    /// as their next message arrives.
    private let userIDs = Mutex<[[UInt8]: String]>([:])
    private static let maxUserIDs = 4096
    private let logger: Logger
    /// ROUTER sockets drop a message its peer cannot take now instead of holding every later
    /// message (to all peers) behind it; the sender's deadlines recover the loss.
    private let dropWhenPeerFull: Bool

    /// Creates the socket, lets `configure` set options, bind and connect it on the calling
    /// thread (so errors such as "address in use" surface here), then hands it to its thread.
    public init(
        name: String,
        context: ZMQContext,
        type: ZMQSocketType,
        inboxCapacity: Int = 1024,
        outboxCapacity: Int = 4096,
        logger: Logger,
        configure: (ZMQSocket) throws -> Void
    ) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ZMQError("pipe", code: errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        let socket = try ZMQSocket(context: context, type: type)
        do {
            try configure(socket)
        } catch {
            socket.close()
            close(fds[0]); close(fds[1])
            throw error
        }
        var bound: [String] = []
        if let endpoint = try? socket.lastEndpoint(), !endpoint.isEmpty { bound.append(endpoint) }
        self.boundEndpoints = bound
        self.name = name
        self.wakeRead = fds[0]
        self.wakeWrite = fds[1]
        self.outboxCapacity = outboxCapacity
        self.logger = logger
        self.dropWhenPeerFull = type == .router
        let wake = fds[1]
        self.inbox = MessageInbox(capacity: inboxCapacity) { SocketThread.poke(wake) }

        let transfer = SocketTransfer(socket)
        let thread = Thread { [self] in
            self.run(transfer.take())
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues a message for sending. Returns false if the outbox is full or the socket is
    /// shutting down: the message is dropped and counted, the caller decides what that means.
    @discardableResult
    public func send(_ message: Message) -> Bool {
        let accepted = outbox.withLock { outbox -> Bool in
            guard !outbox.stopping, outbox.queue.count < outboxCapacity else { return false }
            outbox.queue.append(message)
            return true
        }
        if accepted {
            Self.poke(wakeWrite)
        } else {
            droppedSends.add(1, ordering: .relaxed)
        }
        return accepted
    }

    /// The ZAP User-Id of the peer with this routing id (a ROUTER with CURVE authentication:
    /// the name its key is authorised under), once a message from it has arrived.
    public func userID(of routingID: [UInt8]) -> String? {
        userIDs.withLock { $0[routingID] }
    }

    /// Messages dropped because the outbox was full or closed, or the peer unreachable.
    public var dropped: Int { droppedSends.load(ordering: .relaxed) }

    /// Stops the thread: unsent messages get the socket's linger period, then the socket closes.
    /// Resumes once the thread has exited. Safe to call more than once.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyStopped = outbox.withLock { outbox -> Bool in
                if outbox.stopped { return true }
                outbox.stopping = true
                outbox.stopWaiters.append(continuation)
                return false
            }
            if alreadyStopped { continuation.resume() } else { Self.poke(wakeWrite) }
        }
    }

    /// Asks the thread to stop without waiting for it: for code on a thread of its own that
    /// then blocks in `zmq_ctx_term` until the socket is closed.
    public func requestShutdown() {
        let mustPoke = outbox.withLock { outbox -> Bool in
            guard !outbox.stopped else { return false }
            outbox.stopping = true
            return true
        }
        if mustPoke { Self.poke(wakeWrite) }
    }

    // MARK: the thread

    private func run(_ socket: ZMQSocket) {
        var pending: Message?
        var readBuffer = [UInt8](repeating: 0, count: 64)
        while true {
            let (stopping, batch) = outbox.withLock { outbox -> (Bool, Deque<Message>) in
                defer { outbox.queue.removeAll(keepingCapacity: true) }
                return (outbox.stopping, outbox.queue)
            }
            var toSend = batch
            if let held = pending { toSend.prepend(held); pending = nil }
            while let message = toSend.popFirst() {
                do {
                    if try !socket.send(message) {
                        if dropWhenPeerFull {
                            droppedSends.add(1, ordering: .relaxed)
                            continue
                        }
                        pending = message
                        break
                    }
                } catch {
                    // EHOSTUNREACH from a ROUTER: that peer is gone. Its jobs come back through
                    // the coordinator's deadlines, so dropping is the right thing here.
                    droppedSends.add(1, ordering: .relaxed)
                    logger.debug("dropped an outgoing message", metadata: ["socket": "\(name)", "error": "\(error)"])
                }
            }
            if !toSend.isEmpty {
                // The socket is at its high-water mark: keep the rest, in order, for later.
                outbox.withLock { outbox in
                    outbox.queue.insert(contentsOf: toSend, at: outbox.queue.startIndex)
                }
            }
            if stopping { break }

            var items = [
                zmq_pollitem_t(
                    socket: socket.handle, fd: 0,
                    events: Int16((inbox.hasRoom ? ZMQ_POLLIN : 0) | (pending != nil ? ZMQ_POLLOUT : 0)),
                    revents: 0),
                zmq_pollitem_t(socket: nil, fd: wakeRead, events: Int16(ZMQ_POLLIN), revents: 0),
            ]
            // The timeout only bounds how long a missed wake-up could go unnoticed.
            let rc = zmq_poll(&items, 2, 1000)
            if rc < 0 {
                if zmq_errno() == EINTR { continue }
                if zmq_errno() == ETERM { break }
                logger.error("zmq_poll failed", metadata: ["socket": "\(name)", "error": "\(ZMQError("zmq_poll"))"])
                continue
            }
            if items[1].revents & Int16(ZMQ_POLLIN) != 0 {
                while read(wakeRead, &readBuffer, readBuffer.count) > 0 {}
            }
            if items[0].revents & Int16(ZMQ_POLLIN) != 0 {
                // Bounded batch, so sends are not starved by a flood of incoming messages.
                var received = 0
                while received < 256, inbox.hasRoom {
                    do {
                        var userID: String?
                        guard let message = try socket.receive(userID: &userID) else { break }
                        if dropWhenPeerFull, let userID, let routingID = message.first {
                            userIDs.withLock { ids in
                                if ids.count >= Self.maxUserIDs && ids[routingID] == nil { ids.removeAll() }
                                ids[routingID] = userID
                            }
                        }
                        inbox.push(message)
                        received += 1
                    } catch {
                        logger.warning("receive failed", metadata: ["socket": "\(name)", "error": "\(error)"])
                        break
                    }
                }
            }
        }
        socket.close()
        inbox.finish()
        let waiters = outbox.withLock { outbox -> [CheckedContinuation<Void, Never>] in
            outbox.stopped = true
            defer { outbox.stopWaiters = [] }
            return outbox.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    deinit {
        // Closed only here: `send` may still poke the pipe after the thread has stopped, and a
        // closed descriptor number could by then belong to some other file.
        close(wakeRead)
        close(wakeWrite)
    }

    /// A non-blocking one-byte write; a full pipe already means "wake up".
    private static func poke(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }
}

/// Moves a socket from the thread that made it to its socket thread. ZeroMQ allows a socket to
/// migrate between threads given a full memory barrier, which starting a thread provides.
final class SocketTransfer: @unchecked Sendable {
    // @unchecked: written once before the thread starts, read once by that thread; the creator
    // never touches the socket again.
    private var socket: ZMQSocket?
    init(_ socket: ZMQSocket) { self.socket = socket }
    func take() -> ZMQSocket {
        defer { socket = nil }
        return socket!
    }
}
