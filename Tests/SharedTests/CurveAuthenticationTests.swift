import CZeroMQ
import Foundation
import Logging
@testable import Shared
import Testing

/// CURVE keys, the ZAP handler's answers, and the libzmq behaviour it guards against: a CURVE
/// server whose context has no ZAP handler lets every client in.
@Suite("CURVE keys and the authentication handler", .timeLimit(.minutes(1)))
struct CurveAuthenticationTests {
    @Test("keys: Z85 round trip, a secret key's public key, files refused when others may read the secret")
    func keys() throws {
        let pair = try CurveKeyPair.generate()
        #expect(CurveKey(z85: pair.publicKey.z85) == pair.publicKey)
        #expect(CurveKey(z85: "  " + pair.secretKey.z85 + "\n") == pair.secretKey)
        #expect(try CurveKeyPair(secretKey: pair.secretKey).publicKey == pair.publicKey)
        #expect(CurveKey(z85: "too short") == nil && CurveKey(bytes: [1, 2, 3]) == nil)
        let directory = NSTemporaryDirectory() + "curve-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try CurveKeyFiles.write(pair, to: directory + "/k")
        #expect(try CurveKeyFiles.readSecret(directory + "/k.secret").publicKey == pair.publicKey)
        #expect(try CurveKeyFiles.readPublic(directory + "/k.public") == pair.publicKey)
        #expect(throws: CurveKeyFiles.Failure.self) { try CurveKeyFiles.write(pair, to: directory + "/k") }
        chmod(directory + "/k.secret", 0o640)
        #expect { try CurveKeyFiles.readSecret(directory + "/k.secret") } throws: { "\($0)".contains("chmod 600") }
    }

    @Test("endpoints other machines cannot reach")
    func localEndpoints() {
        for local in ["tcp://127.0.0.1:5555", "tcp://127.3.4.5:1", "tcp://localhost:5555", "tcp://[::1]:5555", "ipc:///run/cull/work", "inproc://x"] {
            #expect(Endpoints.isLocal(local), "\(local)")
        }
        // Default control endpoints: the system daemon's socket for root, or when it exists; else the user's.
        let user = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(Endpoints.serveControl(environment: [:], uid: 0) == "ipc:///run/cull/control")
        #expect(Endpoints.serveControl(environment: user, uid: 1000) == "ipc:///run/user/1000/cull/control")
        #expect(Endpoints.serveControl(environment: ["CULL_CONTROL": "tcp://127.0.0.1:7"], uid: 0) == "tcp://127.0.0.1:7")
        #expect(Endpoints.control(nil, environment: user, uid: 1000, exists: { _ in true }) == "ipc:///run/cull/control")
        #expect(Endpoints.control(nil, environment: user, uid: 1000, exists: { _ in false }) == "ipc:///run/user/1000/cull/control")
        #expect(Endpoints.control(nil, environment: [:], uid: 1000, exists: { _ in false }) == "ipc:///tmp/cull-1000/control")
        #expect(Endpoints.control("tcp://h:1", environment: user, uid: 0, exists: { _ in true }) == "tcp://h:1")
        for open in ["tcp://0.0.0.0:5555", "tcp://*:5555", "tcp://192.168.1.2:5555", "tcp://[::]:5555", "tcp://eth0:5555", "tcp://127.0.0.1;10.0.0.1:5555"] {
            #expect(!Endpoints.isLocal(open), "\(open)")
        }
    }

    @Test("the handler's answers: an authorised CURVE key under its name; other keys, other mechanisms and malformed requests refused")
    func answers() async throws {
        // A context, a bound socket and its thread: blocking calls, on a thread of their own.
        try await onOwnThread {
            let context = try ZMQContext()
            defer { context.terminate() }
            let known = try CurveKeyPair.generate().publicKey, other = try CurveKeyPair.generate().publicKey
            let handler = try ZAPHandler(context: context, keys: [known: "nas"], logger: Logger(label: "test"))
            defer { handler.requestShutdown() }
            func request(_ mechanism: String, _ credentials: [[UInt8]]) -> [[UInt8]] {
                [Array("1.0".utf8), Array("7".utf8), Array("cull".utf8), Array("10.0.0.9".utf8), [], Array(mechanism.utf8)] + credentials
            }
            let yes = handler.reply(to: request("CURVE", [known.bytes]))
            #expect(yes.count == 6 && yes[1] == Array("7".utf8) && yes[2] == Array("200".utf8) && yes[4] == Array("nas".utf8))
            #expect(handler.reply(to: request("CURVE", [other.bytes]))[2] == Array("400".utf8))
            #expect(handler.reply(to: request("NULL", []))[2] == Array("400".utf8))
            #expect(handler.reply(to: request("CURVE", [[1, 2]]))[2] == Array("400".utf8))
            #expect(handler.reply(to: [Array("2.0".utf8), Array("8".utf8)])[2] == Array("400".utf8))
            handler.authorize([other: "laptop"])
            #expect(handler.reply(to: request("CURVE", [known.bytes]))[2] == Array("400".utf8), "a key taken out is refused")
            #expect(handler.reply(to: request("CURVE", [other.bytes]))[4] == Array("laptop".utf8))
        }
    }

    /// Sends "hello" from a CURVE client with `client` keys to a CURVE server in `context`, and
    /// returns the message bodies the server received within `window` after the first arrived
    /// (or nothing within 5 s). Blocking: on a thread of its own.
    static func exchange(serverPair: CurveKeyPair, clients: [CurveKeyPair], handlerKeys: [CurveKey: String]?) async throws -> [String] {
        try await onOwnThread {
            let context = try ZMQContext()
            defer { context.terminate() }
            let handler = try handlerKeys.map { try ZAPHandler(context: context, keys: $0, logger: Logger(label: "test")) }
            let server = try ZMQSocket(context: context, type: .router)
            defer { server.close() }
            try server.setOption(ZMQ_LINGER, Int32(0))
            try server.setOption(ZMQ_CURVE_SERVER, Int32(1))
            try server.setOption(ZMQ_CURVE_SECRETKEY, bytes: serverPair.secretKey.bytes)
            try server.bind("tcp://127.0.0.1:*")
            let endpoint = try server.lastEndpoint()
            var sockets: [ZMQSocket] = []
            defer { for socket in sockets { socket.close() } }
            for (index, pair) in clients.enumerated() {
                let client = try ZMQSocket(context: context, type: .dealer)
                try client.setOption(ZMQ_LINGER, Int32(0))
                try client.setOption(ZMQ_CURVE_SERVERKEY, bytes: serverPair.publicKey.bytes)
                try client.setOption(ZMQ_CURVE_PUBLICKEY, bytes: pair.publicKey.bytes)
                try client.setOption(ZMQ_CURVE_SECRETKEY, bytes: pair.secretKey.bytes)
                try client.connect(endpoint)
                _ = try client.send([Array("client \(index)".utf8)])
                sockets.append(client)
            }
            var received: [String] = []
            let deadline = ContinuousClock.now + .seconds(5)
            var settle: ContinuousClock.Instant?
            while ContinuousClock.now < (settle ?? deadline) {
                var items = [zmq_pollitem_t(socket: server.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
                guard zmq_poll(&items, 1, 50) >= 0 else { continue }
                while let message = try server.receive() {
                    received.append(String(decoding: message.last ?? [], as: UTF8.self))
                    // The others had the same time to get through: a short while more for them.
                    settle = settle ?? ContinuousClock.now + .milliseconds(500)
                }
            }
            handler?.requestShutdown()
            // Its thread closes its socket within a poll (200 ms); the context's end waits for it.
            let stopBy = ContinuousClock.now + .seconds(5)
            while let handler, !handler.hasStopped, ContinuousClock.now < stopBy { usleep(10_000) }
            return received.sorted()
        }
    }

    @Test("libzmq lets any client into a CURVE server whose context has no handler; with the handler only the authorised one gets through")
    func guardedByTheHandler() async throws {
        let server = try CurveKeyPair.generate(), stranger = try CurveKeyPair.generate(), known = try CurveKeyPair.generate()
        let unguarded = try await Self.exchange(serverPair: server, clients: [stranger], handlerKeys: nil)
        #expect(unguarded == ["client 0"], "without a handler the stranger gets in: why the handler must be bound first")
        let guarded = try await Self.exchange(serverPair: server, clients: [stranger, known], handlerKeys: [known.publicKey: "known"])
        #expect(guarded == ["client 1"], "only the authorised client: \(guarded)")
    }
}
