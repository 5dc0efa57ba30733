import Synchronization

/// A `MessageTransport` with no socket: the test on the other side delivers messages into
/// `inbox` and reads what was sent from `sent`. Both sides are bounded (rule 5): a daemon that
/// sends more than `sent` holds before the test reads has its sends dropped, as a full ZeroMQ
/// outbox would.
public final class InProcessTransport: MessageTransport {
    public let inbox: MessageInbox<[[UInt8]]>
    /// What the daemon sent, in order.
    public let sent: MessageInbox<[[UInt8]]>
    private let closed = Atomic<Bool>(false)

    public init(capacity: Int = 4096) {
        inbox = MessageInbox(capacity: capacity)
        sent = MessageInbox(capacity: capacity)
    }

    /// The peer's side: hands the daemon a message. False if the inbox is full or closed.
    @discardableResult
    public func deliver(_ message: [[UInt8]]) -> Bool { inbox.push(message) }

    @discardableResult
    public func send(_ message: [[UInt8]]) -> Bool {
        guard !closed.load(ordering: .acquiring) else { return false }
        return sent.push(message)
    }

    public func shutdown() async {
        closed.store(true, ordering: .releasing)
        inbox.finish()
        sent.finish()
    }

    public var isShutDown: Bool { closed.load(ordering: .acquiring) }
}
