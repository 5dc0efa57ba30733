import Foundation
import Testing

/// Issue 11, point 8: Prometheus metrics over HTTP from both daemons, moving during a scan.
@Suite("Metrics over HTTP", .serialized, .timeLimit(.minutes(3)))
struct MetricsTests {
    /// One HTTP/1.1 GET over a plain socket (what `curl` would do), on a thread of its own with
    /// a 5 s receive timeout; the status line and body.
    static func get(port: Int, path: String) async throws -> (status: String, body: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    guard fd >= 0 else { throw HarnessError("socket() failed") }
                    defer { close(fd) }
                    var timeout = timeval(tv_sec: 5, tv_usec: 0)
                    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                    var address = sockaddr_in()
                    address.sin_family = sa_family_t(AF_INET)
                    address.sin_addr.s_addr = inet_addr("127.0.0.1")
                    address.sin_port = UInt16(port).bigEndian
                    let connected = withUnsafePointer(to: &address) { pointer in
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
                    }
                    guard connected else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
                    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
                    guard write(fd, request, request.count) == request.count else { throw HarnessError("write failed") }
                    var response: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let count = read(fd, &chunk, chunk.count)
                        if count <= 0 { break }  // the server closes after its answer (or the 5 s timeout)
                        response += chunk[0..<count]
                    }
                    let text = String(decoding: response, as: UTF8.self)
                    let status = text.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
                    let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
                    return (status, body)
                })
            }
        }
    }

    /// The value of the sample `name` (with its labels, as printed) in a scrape; 0 if absent.
    static func value(_ name: String, in body: String) -> Double {
        for line in body.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? 0
        }
        return 0
    }

    /// How long the worker's every read is made to take (`CULL_WORKER_FAULTS`).
    static let readDelayMilliseconds = 250

    @Test("curl of /metrics during a scan: the coordinator's photo counters and the worker's read and decode histograms move; other paths 404")
    func countersMove() async throws {
        let ports = try freePorts(2)
        let cluster = try Cluster(serveArguments: ["--metrics", "127.0.0.1:\(ports[0])"],
                                  workerEnvironment: ["CULL_WORKER_FAULTS": "read-delay-ms=\(Self.readDelayMilliseconds)"],
                                  workerArguments: ["--metrics", "127.0.0.1:\(ports[1])"])
        let library = cluster.scratch.path + "/lib"
        let photos = try await writeLibrary(to: library, scenes: 6, width: 160, height: 120, extras: false).count
        try cluster.startServe()
        try cluster.startWorker(0)
        try await cluster.waitForWorkers(1)
        // Up before any scan: the endpoint serves as soon as the daemon does.
        let idle = try await Self.get(port: ports[0], path: "/metrics")
        #expect(idle.status == "HTTP/1.1 200 OK")
        #expect(idle.body.contains("cull_workers 1"))

        let scan = try await cluster.startScan(library)
        // Two scrapes while photos are being analysed, the second showing more: at 2 fetch
        // threads and 250 ms a read, 8 photos a second, the 54 photos last seconds after the first
        // result. At 40 ms it lasted under a second, and on a loaded machine (CI, the other
        // integration suites beside it) the scan once finished between the two scrapes.
        var first = 0.0
        try await waitUntil("photos analysed show in the metrics", timeout: .seconds(30)) {
            first = Self.value("cull_photos_total{outcome=\"analysed\"}", in: try await Self.get(port: ports[0], path: "/metrics").body)
            return first > 0
        }
        var second = first
        try await waitUntil("the analysed count moves", timeout: .seconds(30)) {
            second = Self.value("cull_photos_total{outcome=\"analysed\"}", in: try await Self.get(port: ports[0], path: "/metrics").body)
            return second > first
        }
        #expect(first < Double(photos), "the first scrape came during the scan: \(first) of \(photos)")
        try await cluster.waitFor(scan: scan, timeout: .seconds(60)) { $0.state == "done" }

        let coordinator = try await Self.get(port: ports[0], path: "/metrics").body
        #expect(Self.value("cull_photos_total{outcome=\"analysed\"}", in: coordinator) == Double(photos))
        #expect(Self.value("cull_grouping_duration_seconds_count", in: coordinator) >= 1)
        #expect(Self.value("cull_photos_by_worker_total{worker=\"worker-0\"}", in: coordinator) >= Double(photos))
        #expect(coordinator.contains("# TYPE cull_results_applied_total counter"))
        let worker = try await Self.get(port: ports[1], path: "/metrics").body
        #expect(Self.value("cull_worker_fetch_duration_seconds_count", in: worker) >= Double(photos))
        #expect(Self.value("cull_worker_analysis_duration_seconds_count", in: worker) >= Double(photos))
        #expect(Self.value("cull_worker_photos_total{outcome=\"analysed\"}", in: worker) >= Double(photos))
        #expect(Self.value("cull_worker_fetch_duration_seconds_sum", in: worker) >= Double(Self.readDelayMilliseconds) / 1000 * Double(photos),
                "each read took its \(Self.readDelayMilliseconds) ms")
        #expect(try await Self.get(port: ports[0], path: "/").status == "HTTP/1.1 404 Not Found")
    }

    @Test("a metrics address that is not HOST:PORT, or a port already taken, is refused at startup with what to do")
    func badAddress() async throws {
        let scratch = try Scratch()
        let malformed = try await runCommand("cull", ["serve", "--db", scratch.path + "/c.sqlite", "--work", "tcp://127.0.0.1:\(try freePorts(1)[0])",
                                                      "--control", "ipc://\(scratch.path)/control", "--metrics", "localhost"], in: scratch.path)
        #expect(malformed.status != 0 && malformed.stderr.contains("give HOST:PORT"), "\(malformed.stderr)")
        let ports = try freePorts(2)
        // A port something listens on: the first daemon's own metrics.
        let first = try Child("cull", ["serve", "--db", scratch.path + "/a.sqlite", "--work", "tcp://127.0.0.1:\(ports[0])",
                                       "--control", "ipc://\(scratch.path)/a", "--metrics", "127.0.0.1:\(ports[1])"], in: scratch.path)
        defer { first.signal(SIGKILL) }
        try await waitUntil("the first daemon serves metrics", timeout: .seconds(30)) {
            (try? await Self.get(port: ports[1], path: "/metrics").status) == "HTTP/1.1 200 OK"
        }
        let taken = try await runCommand("cull", ["serve", "--db", scratch.path + "/b.sqlite", "--work", "tcp://127.0.0.1:\(try freePorts(1)[0])",
                                                  "--control", "ipc://\(scratch.path)/b", "--metrics", "127.0.0.1:\(ports[1])"],
                                         in: scratch.path, timeout: .seconds(30))
        #expect(taken.status == 1 && taken.stderr.contains("cannot serve metrics at 127.0.0.1:\(ports[1])"), "\(taken.stderr)")
    }
}
