import CZeroMQ
import Foundation
import Logging
import Shared
import Testing

@Suite("SocketThread over ZeroMQ", .timeLimit(.minutes(2)))
struct SocketThreadTests {
    let logger = Logger(label: "test")

    @Test("ROUTER and DEALER exchange multipart messages on loopback and shut down cleanly")
    func routerDealer() async throws {
        let context = try ZMQContext()
        let router = try SocketThread(name: "test.router", context: context, type: .router, logger: logger) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.bind("tcp://127.0.0.1:*")
        }
        let endpoint = try #require(router.boundEndpoints.first)
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        let dealer = try SocketThread(name: "test.dealer", context: context, type: .dealer, logger: logger) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.setOption(ZMQ_ROUTING_ID, bytes: Array("dealer-1".utf8))
            try socket.connect(endpoint)
        }
        for index in 0..<100 {
            #expect(dealer.send([Array("ping".utf8), [UInt8(index)], []]))
        }
        var received = 0
        for await message in router.inbox {
            #expect(message.count == 4)
            #expect(message[0] == Array("dealer-1".utf8))
            #expect(message[1] == Array("ping".utf8))
            #expect(message[2] == [UInt8(received)], "messages arrive in order")
            #expect(message[3].isEmpty)
            router.send([message[0], Array("pong".utf8)])
            received += 1
            if received == 100 { break }
        }
        var replies = 0
        for await message in dealer.inbox {
            #expect(message == [Array("pong".utf8)])
            replies += 1
            if replies == 100 { break }
        }
        await dealer.shutdown()
        await router.shutdown()
        await dealer.shutdown()  // twice is fine
        #expect(!dealer.send([[1]]), "a closed socket takes nothing")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { context.terminate(); done.resume() }
        }
    }

    @Test("a full inbox stops reading instead of growing")
    func boundedInbox() async throws {
        let context = try ZMQContext()
        let router = try SocketThread(name: "test.router", context: context, type: .router, inboxCapacity: 8, logger: logger) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.bind("inproc://bounded")
        }
        let dealer = try SocketThread(name: "test.dealer", context: context, type: .dealer, logger: logger) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.connect("inproc://bounded")
        }
        for index in 0..<50 { dealer.send([[UInt8(index)]]) }
        let deadline = ContinuousClock.now + .seconds(5)
        while router.inbox.hasRoom, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!router.inbox.hasRoom, "the inbox filled to its capacity and no further")
        var seen: [UInt8] = []
        for await message in router.inbox {
            seen.append(message[1][0])
            if seen.count == 50 { break }
        }
        #expect(seen == Array(0..<50), "nothing was lost while the inbox was full")
        await dealer.shutdown()
        await router.shutdown()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { context.terminate(); done.resume() }
        }
    }
}
