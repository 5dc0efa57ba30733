import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether anything listens at a control endpoint, found out in milliseconds.
///
/// A ZeroMQ connect never fails: the socket retries quietly in the background, so a client
/// of a daemon that is not running could only learn it when its whole `--timeout` ran out. A
/// plain connect to the same TCP port or Unix socket is refused at once when nothing listens,
/// so the client says so at once. A probe that cannot tell (a firewall that drops packets, a
/// name that does not resolve) answers `.unknown`, and the request goes on with its deadline.
enum EndpointProbe {
    enum Outcome: Equatable {
        case listening
        /// Nothing listens: why, in words for the person at the terminal.
        case refused(String)
        case unknown
    }

    /// The endpoint's shape checked before any socket is made: `tcp://HOST:PORT` or
    /// `ipc://PATH`. Returns the message for a wrong one (with the fix), nil for a good one.
    static func problem(with endpoint: String) -> String? {
        if endpoint.hasPrefix("tcp://") || endpoint.hasPrefix("ipc://") { return nil }
        if !endpoint.contains("://") {
            return "'\(endpoint)' is not a ZeroMQ endpoint: write tcp://\(endpoint) (or ipc:///path/to/socket for a local socket)"
        }
        return "'\(endpoint)' is not an endpoint cull serve listens on: use tcp://HOST:PORT or ipc:///path/to/socket"
    }

    /// Connects once and lets go, waiting at most `limit` (TCP; a Unix socket answers at once).
    /// Blocking system calls: run it on a thread of its own.
    static func probe(_ endpoint: String, limit: Duration) -> Outcome {
        if endpoint.hasPrefix("ipc://") { return probeUnix(String(endpoint.dropFirst("ipc://".count))) }
        guard endpoint.hasPrefix("tcp://"), let (host, port) = hostAndPort(String(endpoint.dropFirst("tcp://".count))) else {
            return .unknown
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &list) == 0, let first = list else { return .unknown }
        defer { freeaddrinfo(first) }
        var refused = false
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            switch connectOnce(address.pointee, limit: limit) {
            case .listening: return .listening
            case .refused: refused = true
            case .unknown: break
            }
            entry = address.pointee.ai_next
        }
        return refused ? .refused("nothing listens at \(endpoint) (connection refused)") : .unknown
    }

    /// `HOST:PORT`, `[IPv6]:PORT`; nil for a wildcard or a malformed address.
    static func hostAndPort(_ address: String) -> (String, String)? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = String(address[..<colon])
        let port = String(address[address.index(after: colon)...])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host != "*", let number = Int(port), (1...65535).contains(number) else { return nil }
        return (host, port)
    }

    private static func connectOnce(_ address: addrinfo, limit: Duration) -> Outcome {
        let fd = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
        guard fd >= 0 else { return .unknown }
        defer { close(fd) }
        if connect(fd, address.ai_addr, address.ai_addrlen) == 0 { return .listening }
        if errno == ECONNREFUSED { return .refused("") }
        guard errno == EINPROGRESS else { return .unknown }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(clamping: limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, max(1, milliseconds)) == 1 else { return .unknown }  // no answer in time: cannot tell
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return .unknown }
        switch failure {
        case 0: return .listening
        case ECONNREFUSED: return .refused("")
        default: return .unknown
        }
    }

    private static func probeUnix(_ path: String) -> Outcome {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return .refused("nothing listens at ipc://\(path) (\(String(cString: strerror(errno))))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .unknown }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        // Non-blocking: a listener whose backlog is full would hold a blocking connect; that
        // answers EAGAIN here, which cannot tell (a busy daemon is still a daemon).
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unknown }
        defer { close(fd) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 { return .listening }
        return errno == ECONNREFUSED ? .refused("nothing listens at ipc://\(path) (connection refused)") : .unknown
    }
}
