import CZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// The ZeroMQ socket types cull uses.
public enum ZMQSocketType: Sendable {
    case router, dealer, reply, pair

    var rawValue: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .reply: ZMQ_REP
        case .pair: ZMQ_PAIR
        }
    }
}

/// One ZeroMQ socket. ZeroMQ sockets are not thread-safe: a socket is created, used and closed
/// by one thread at a time (here, its `SocketThread`), so this type is deliberately not Sendable.
public final class ZMQSocket {
    let handle: UnsafeMutableRawPointer
    private var closed = false

    public init(context: ZMQContext, type: ZMQSocketType) throws {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError("zmq_socket")
        }
        self.handle = handle
    }

    deinit { close() }

    /// Closes the socket, discarding unsent messages after the linger period.
    public func close() {
        guard !closed else { return }
        closed = true
        zmq_close(handle)
    }

    // MARK: options

    public func setOption(_ option: Int32, _ value: Int32) throws {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw ZMQError("zmq_setsockopt(\(option))")
        }
    }

    public func setOption(_ option: Int32, _ value: Int64) throws {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) == 0 else {
            throw ZMQError("zmq_setsockopt(\(option))")
        }
    }

    public func setOption(_ option: Int32, bytes: [UInt8]) throws {
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        guard rc == 0 else { throw ZMQError("zmq_setsockopt(\(option))") }
    }

    /// The endpoint actually bound (resolves "tcp://127.0.0.1:*" to a port).
    public func lastEndpoint() throws -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else {
            throw ZMQError("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func bind(_ endpoint: String) throws {
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQError("bind \(endpoint)") }
    }

    public func connect(_ endpoint: String) throws {
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError("connect \(endpoint)") }
    }

    // MARK: messages

    /// Sends a multipart message without blocking. Returns false if the socket cannot take it
    /// now (EAGAIN: the peer's queue is at its high-water mark); throws on any other error.
    public func send(_ frames: [[UInt8]]) throws -> Bool {
        precondition(!frames.isEmpty, "a ZeroMQ message has at least one frame")
        for (index, frame) in frames.enumerated() {
            var flags = ZMQ_DONTWAIT
            if index < frames.count - 1 { flags |= ZMQ_SNDMORE }
            var message = zmq_msg_t()
            guard zmq_msg_init_size(&message, frame.count) == 0 else { throw ZMQError("zmq_msg_init_size") }
            if !frame.isEmpty {
                frame.withUnsafeBytes { source in
                    zmq_msg_data(&message).copyMemory(from: source.baseAddress!, byteCount: source.count)
                }
            }
            while true {
                if zmq_msg_send(&message, handle, flags) >= 0 { break }
                let error = zmq_errno()
                if error == EINTR { continue }
                zmq_msg_close(&message)
                // Only the first frame can meet EAGAIN: once it is queued, ZeroMQ takes the rest
                // of the message atomically.
                if error == EAGAIN && index == 0 { return false }
                throw ZMQError("zmq_msg_send", code: error)
            }
        }
        return true
    }

    /// Receives one whole multipart message without blocking, or nil if none is waiting.
    public func receive() throws -> [[UInt8]]? {
        var ignored: String?
        return try receive(userID: &ignored)
    }

    /// The same, with the connection's ZAP User-Id (the name the authentication handler gave
    /// its key; nil without authentication) in `userID`.
    public func receive(userID: inout String?) throws -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        while true {
            var message = zmq_msg_t()
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            let flags = frames.isEmpty ? ZMQ_DONTWAIT : 0  // later frames are already here
            var rc: Int32
            repeat { rc = zmq_msg_recv(&message, handle, flags) } while rc < 0 && zmq_errno() == EINTR
            if rc < 0 {
                let error = zmq_errno()
                if error == EAGAIN && frames.isEmpty { return nil }
                throw ZMQError("zmq_msg_recv", code: error)
            }
            // A ROUTER's routing-id frame is made locally and carries no metadata: the peer's frames do.
            if userID == nil, let property = zmq_msg_gets(&message, "User-Id") { userID = String(cString: property) }
            let size = zmq_msg_size(&message)
            let data = zmq_msg_data(&message)
            frames.append(size == 0 ? [] : Array(UnsafeRawBufferPointer(start: data, count: size)))
            if zmq_msg_more(&message) == 0 { return frames }
        }
    }
}
