import CZeroMQ
import Foundation
import Logging
import Shared

/// A scripted protocol peer for tests: a worker that does exactly what the test says (holds a
/// job, answers late, ignores cancels), or a fuzzer.
final class FakePeer: Sendable {
    let context: ZMQContext
    let socket: SocketThread

    init(dealerTo endpoint: String, id: String) throws {
        context = try ZMQContext()
        socket = try SocketThread(name: "it.fake", context: context, type: .dealer, inboxCapacity: 64, logger: Logger(label: "it")) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.setOption(ZMQ_ROUTING_ID, bytes: Array(id.utf8))
            try socket.connect(endpoint)
        }
    }

    func send(_ command: Cull_V1_Envelope.OneOf_Command) { socket.send(WireCodec.encode(command)) }

    /// The next command matching `accept`, within `timeout`.
    func next(timeout: Duration, _ accept: @escaping @Sendable (Cull_V1_Envelope.OneOf_Command) -> Bool = { _ in true }) async -> Cull_V1_Envelope.OneOf_Command? {
        await firstMessage(in: socket.inbox, timeout: timeout) { message in
            guard let command = try? WireCodec.decode(message), accept(command) else { return nil }
            return command
        }
    }

    func close() async {
        await socket.shutdown()
        let context = self.context
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { context.terminate(); done.resume() }
        }
    }
}

/// Frames a fuzzer sends: random bytes, valid headers with random bodies, and valid messages
/// of every kind with bytes flipped, cut or appended.
struct FrameFuzzer {
    var random = SystemRandomNumberGenerator()
    let templates: [[UInt8]]

    init(templates: [Cull_V1_Envelope.OneOf_Command]) {
        self.templates = templates.map { WireCodec.encode($0)[1] }
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }

    mutating func next() -> [[UInt8]] {
        switch Int.random(in: 0..<5, using: &random) {
        case 0:  // anything at all
            return (0..<Int.random(in: 1...4, using: &random)).map { _ in bytes(Int.random(in: 0..<48, using: &random)) }
        case 1:  // right header, random body
            return [WireProtocol.header, bytes(Int.random(in: 0..<96, using: &random))]
        case 2:  // wrong version
            var header = WireProtocol.header
            header[4] = UInt8.random(in: 2...255, using: &random)
            return [header, templates.randomElement(using: &random)!]
        default:  // a valid message, mutated
            var body = templates.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...4, using: &random) where !body.isEmpty {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: body[Int.random(in: 0..<body.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                case 1: body.removeLast(Int.random(in: 0...min(4, body.count), using: &random))
                default: body += bytes(Int.random(in: 1...8, using: &random))
                }
            }
            return [WireProtocol.header, body]
        }
    }
}

/// The first message in `inbox` that `match` turns into a value, or nil at the deadline.
func firstMessage<T: Sendable>(in inbox: MessageInbox<[[UInt8]]>, timeout: Duration,
                               _ match: @escaping @Sendable ([[UInt8]]) -> T?) async -> T? {
    await withTimeout(timeout) {
        while let message = await inbox.next() {
            if let found = match(message) { return found }
        }
        return nil
    }
}
