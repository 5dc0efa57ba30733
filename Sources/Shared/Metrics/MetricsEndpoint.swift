import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// Serves a Prometheus registry over HTTP: `GET /metrics` answers the text exposition format,
/// anything else 404. A service of its own in the daemon's group: bound before the group starts
/// (a taken port is said at startup, not later), closed at graceful shutdown.
///
/// A small swift-nio server on one event-loop thread of its own, off the cooperative pool.
/// Every connection is closed after one answer, and one that sends nothing for 10 s is closed
/// (rule 3); request bodies are not read. `beforeScrape` runs on that thread just before each
/// answer, so gauges sampled from the daemon's state (under its Mutexes, microseconds) are as
/// fresh as the scrape.
public final class MetricsEndpoint: Service, Sendable {
    public let registry: PrometheusCollectorRegistry
    /// The address it listens on, as `host:port` (the real port when 0 was asked for).
    public let boundAddress: String
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    private init(registry: PrometheusCollectorRegistry, channel: any Channel, group: MultiThreadedEventLoopGroup, boundAddress: String) {
        self.registry = registry
        self.channel = channel
        self.group = group
        self.boundAddress = boundAddress
    }

    /// Listens on `address` (`HOST:PORT`, `:PORT` for loopback, `[::1]:PORT`).
    public static func bind(_ address: String, registry: PrometheusCollectorRegistry,
                            beforeScrape: @escaping @Sendable () -> Void) async throws -> MetricsEndpoint {
        let (host, port) = try parse(address)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 64)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: .seconds(10)))
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(MetricsRequestHandler(registry: registry, beforeScrape: beforeScrape))
                    }
                }
                .bind(host: host, port: port).get()
            let bound = channel.localAddress.map { "\(host.contains(":") ? "[\(host)]" : host):\($0.port ?? port)" } ?? address
            return MetricsEndpoint(registry: registry, channel: channel, group: group, boundAddress: bound)
        } catch {
            try? await group.shutdownGracefully()
            throw MetricsEndpointError("cannot serve metrics at \(address): \(error) (is the port in use, or the address not this machine's?)")
        }
    }

    /// `address` as host and port; throws with what to write instead.
    public static func parse(_ address: String) throws -> (host: String, port: Int) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65_535).contains(port) else {
            throw MetricsEndpointError("--metrics \(address): give HOST:PORT, for example 127.0.0.1:9464")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    public func run() async throws {
        // Serves until the group shuts down (or cancels), then stops listening.
        try? await gracefulShutdown()
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

public struct MetricsEndpointError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// One request, one answer, then the connection is closed.
final class MetricsRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let registry: PrometheusCollectorRegistry
    let beforeScrape: @Sendable () -> Void
    private var head: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry, beforeScrape: @escaping @Sendable () -> Void) {
        self.registry = registry
        self.beforeScrape = beforeScrape
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let status: HTTPResponseStatus
        var body: [UInt8]
        var type = "text/plain; charset=utf-8"
        if head.method != .GET && head.method != .HEAD {
            (status, body) = (.methodNotAllowed, Array("only GET\n".utf8))
        } else if path == "/metrics" {
            beforeScrape()
            status = .ok
            body = registry.emitToBuffer()
            type = "text/plain; version=0.0.4; charset=utf-8"
        } else {
            (status, body) = (.notFound, Array("cull serves its metrics at /metrics\n".utf8))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: "close")
        if head.method == .HEAD { body = [] }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }
}
