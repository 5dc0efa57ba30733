/// The seam between the daemons and their sockets: a bounded inbox of received messages and a
/// non-blocking send. `SocketThread` is the real one (a ZeroMQ socket on its own thread);
/// `InProcessTransport` lets a test drive a coordinator or a worker in process with a fake
/// peer, the way swift-nio's EmbeddedChannel drives handlers.
///
/// Messages are lists of frames; on a ROUTER socket the first frame is the peer's routing id.
public protocol MessageTransport: Sendable {
    /// Messages received, in order; finishes when the transport shuts down.
    var inbox: MessageInbox<[[UInt8]]> { get }
    /// Queues a message; false if it was dropped (outbox full, shutting down).
    @discardableResult
    func send(_ message: [[UInt8]]) -> Bool
    /// Closes the transport; the inbox finishes. Safe to call more than once.
    func shutdown() async
    /// The name of the key a peer authenticated with (CURVE), if any.
    func userID(of routingID: [UInt8]) -> String?
}

extension MessageTransport {
    public func userID(of routingID: [UInt8]) -> String? { nil }
}

extension SocketThread: MessageTransport {}
