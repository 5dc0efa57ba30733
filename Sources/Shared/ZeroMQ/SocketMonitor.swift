import CZeroMQ
import Foundation
import Logging
import Synchronization

/// Reads a socket's libzmq monitor events (`zmq_socket_monitor`) on a thread of its own and
/// hands each to `handle`: what a socket cannot say through its messages, such as a CURVE
/// handshake the other side refused. Polls with a 200 ms timeout so `shutdown()` is seen
/// promptly (rule 3); the events libzmq queues are bounded by its high-water mark (rule 5).
public final class SocketMonitor: Sendable {
    /// One monitor event: its ZMQ_EVENT_* number, its value (an error or status code, a file
    /// descriptor), and the endpoint it concerns.
    public struct Event: Sendable {
        public var kind: Int32
        public var value: UInt32
        public var endpoint: String
    }

    private let stopping = Atomic<Bool>(false)
    private let stoppedFlag = Atomic<Bool>(false)

    /// Starts monitoring `socket` (call it on the thread that owns the socket, before handing
    /// it on) for `events`, delivered to `handle` on the monitor's thread.
    public init(socket: ZMQSocket, context: ZMQContext, events: Int32, name: String,
                logger: Logger, handle: @escaping @Sendable (Event) -> Void) throws {
        let endpoint = "inproc://\(name).monitor"
        guard zmq_socket_monitor(socket.handle, endpoint, events) == 0 else { throw ZMQError("zmq_socket_monitor") }
        let reader = try ZMQSocket(context: context, type: .pair)
        do {
            try reader.setOption(ZMQ_LINGER, Int32(0))
            try reader.connect(endpoint)
        } catch {
            reader.close()
            throw error
        }
        let transfer = SocketTransfer(reader)
        let thread = Thread { [self] in
            let reader = transfer.take()
            defer { reader.close(); stoppedFlag.store(true, ordering: .releasing) }
            while !stopping.load(ordering: .acquiring) {
                var items = [zmq_pollitem_t(socket: reader.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
                let rc = zmq_poll(&items, 1, 200)
                if rc < 0 {
                    if zmq_errno() == EINTR { continue }
                    return  // the context is ending
                }
                guard rc > 0 else { continue }
                while let frames = try? reader.receive() {
                    // Two frames: 6 bytes (16-bit event, 32-bit value, native order), then the endpoint.
                    guard frames.count == 2, frames[0].count == 6 else { continue }
                    let kind = frames[0].withUnsafeBytes { Int32($0.loadUnaligned(fromByteOffset: 0, as: UInt16.self)) }
                    let value = frames[0].withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
                    handle(Event(kind: kind, value: value, endpoint: String(decoding: frames[1], as: UTF8.self)))
                }
            }
        }
        thread.name = "\(name).monitor"
        thread.start()
    }

    /// Asks the thread to stop; it closes its socket within 200 ms (before `zmq_ctx_term`
    /// can end).
    public func requestShutdown() { stopping.store(true, ordering: .releasing) }

    public var hasStopped: Bool { stoppedFlag.load(ordering: .acquiring) }
}
