import CZeroMQ

/// A libzmq call failed; `message` is libzmq's own text for errno.
public struct ZMQError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32
    public let message: String

    public init(_ operation: String, code: Int32 = zmq_errno()) {
        self.operation = operation
        self.code = code
        self.message = String(cString: zmq_strerror(code))
    }

    public var description: String { "\(operation): \(message)" }
}
