import Foundation
import Testing

/// `cull serve --library-root`: the control endpoint starts scans only inside the folders the
/// operator named, whatever a client asks.
@Suite("Library roots", .serialized, .timeLimit(.minutes(2)))
struct LibraryRootTests {
    @Test("scans start inside --library-root only: a folder outside, a link leading out and /etc are refused with the reason")
    func onlyInside() async throws {
        let probe = try Scratch()
        let library = probe.path + "/photos", other = probe.path + "/elsewhere"
        for folder in [library + "/2024", other] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        #expect(symlink(other, library + "/link-out") == 0)
        let cluster = try Cluster(serveArguments: ["--library-root", library])
        try cluster.startServe()
        try await cluster.waitForWorkers(0)

        let inside = try await cluster.cull(["scan", library + "/2024"])
        #expect(inside.status == 0, "a folder inside: \(inside.stderr)")
        for refused in [other, library + "/link-out", "/etc"] {
            let result = try await cluster.cull(["scan", refused])
            #expect(result.status != 0, "\(refused) was scanned")
            #expect(result.stderr.contains("outside the library folders this daemon scans"), "\(refused): \(result.stderr)")
        }
        #expect(await cluster.serve?.stop() == 0)
    }
}
