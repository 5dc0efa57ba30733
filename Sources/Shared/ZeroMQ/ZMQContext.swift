import CZeroMQ

/// A libzmq context: the I/O threads behind every socket made from it.
///
/// libzmq documents contexts as thread-safe, so one is shared by all of a process's socket
/// threads. `terminate()` must come after every socket made from it is closed; it blocks until
/// then, so call it from a thread of your own, never from async code.
public final class ZMQContext: @unchecked Sendable {
    // @unchecked: the pointer is only passed to libzmq's context functions, which are
    // thread-safe by libzmq's contract; it is never dereferenced here.
    let handle: UnsafeMutableRawPointer

    public init(ioThreads: Int32 = 1) throws {
        guard let handle = zmq_ctx_new() else { throw ZMQError("zmq_ctx_new") }
        zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads)
        // Bound the sockets one process can open (rule 5); a daemon needs a handful.
        zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, 256)
        self.handle = handle
    }

    /// Ends the context. Blocks until every socket of it is closed: call from a plain thread.
    public func terminate() {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}
