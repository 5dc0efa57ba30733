import Foundation
import Testing

/// Issue 11's multi-host acceptance, in CI: `deploy/multihost-test.sh` puts the coordinator and
/// two workers on three network namespaces joined by a bridge, with CURVE keys; scans; cuts one
/// worker's link while it holds jobs (they are requeued, the scan completes), restores it (it
/// rejoins), and checks the groups equal a single-host run. Network namespaces need root.
@Suite("Multi-host rehearsal", .timeLimit(.minutes(5)), .enabled(if: getuid() == 0, "network namespaces need root"))
struct MultihostRehearsalTests {
    @Test("deploy/multihost-test.sh: three hosts, CURVE, a link cut mid-scan and restored, the same groups as one host")
    func rehearsal() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let scratch = try Scratch()
        let result = try await runCommand("/bin/bash", [repository + "/deploy/multihost-test.sh", Binaries.directory.path],
                                          in: scratch.path, timeout: .seconds(240))
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\n\(result.stderr.suffix(3000))")
        #expect(result.stdout.contains("the same as a single-host run") && result.stdout.contains("ok (link cut and restored mid-scan)"))
    }
}
