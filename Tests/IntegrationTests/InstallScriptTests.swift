import Foundation
import Testing

/// scripts/install.sh puts the binaries, the units and an example configuration in place (into a
/// scratch root here), and never overwrites an operator's configuration.
@Suite("Install script", .timeLimit(.minutes(1)))
struct InstallScriptTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("binaries, units, configuration and folders under --root; a second run keeps the edited cull.env")
    func installs() async throws {
        let scratch = try Scratch()
        let root = scratch.path + "/root"
        let build = try Binaries.url("cull").deletingLastPathComponent().path
        let arguments = [Self.repository + "/scripts/install.sh", "--root", root, "--build", build, "--no-user"]
        let first = try await runCommand("/bin/bash", arguments, in: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let files = FileManager.default
        for (path, mode) in [("/usr/local/bin/cull", 0o755), ("/usr/local/bin/cull-worker", 0o755), ("/etc/systemd/system/cull.service", 0o644),
                             ("/etc/systemd/system/cull-worker@.service", 0o644), ("/etc/cull/cull.env", 0o644)] {
            let attributes = try files.attributesOfItem(atPath: root + path)
            #expect(attributes[.posixPermissions] as? Int == mode, "\(path): \(attributes)")
        }
        var folder: ObjCBool = false
        #expect(files.fileExists(atPath: root + "/etc/cull/authorized", isDirectory: &folder) && folder.boolValue)
        #expect(files.fileExists(atPath: root + "/var/lib/cull", isDirectory: &folder) && folder.boolValue)

        try "CULL_DB=/srv/cull.sqlite\n".write(toFile: root + "/etc/cull/cull.env", atomically: true, encoding: .utf8)
        let second = try await runCommand("/bin/bash", arguments, in: scratch.path)
        #expect(second.status == 0 && second.stdout.contains("kept"), "\(second.stdout)\(second.stderr)")
        #expect(try String(contentsOfFile: root + "/etc/cull/cull.env", encoding: .utf8) == "CULL_DB=/srv/cull.sqlite\n")
        #expect(files.fileExists(atPath: root + "/etc/cull/cull.env.example"))

        let missing = try await runCommand("/bin/bash", [Self.repository + "/scripts/install.sh", "--root", root, "--build", scratch.path + "/nowhere"],
                                           in: scratch.path)
        #expect(missing.status != 0 && missing.stderr.contains("swift build -c release"), "\(missing.stderr)")
    }
}
