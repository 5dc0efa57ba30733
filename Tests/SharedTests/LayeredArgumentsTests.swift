import Foundation
@testable import Shared
import Testing

@Suite("Settings: flags, environment, configuration file", .timeLimit(.minutes(5)))
struct LayeredArgumentsTests {
    struct Command {}
    let settings: [Setting<Command>] = [
        Setting("--alpha", "CULL_ALPHA") { _ in "" },
        Setting("--beta", "CULL_BETA") { _ in "" },
        Setting("--gamma", "CULL_GAMMA") { _ in "" },
        Setting("--root", "CULL_ROOTS", .list) { _ in "" },
        Setting("--insecure", "CULL_INSECURE", .flag) { _ in "" },
        Setting("--delta", "CULL_DELTA") { _ in "" },
    ]

    func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cull-\(UUID().uuidString).env").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a flag wins over the environment, the environment over the file, the file over the default; empty values count as unset")
    func precedence() async throws {
        let path = try file("""
            # the example file's comments
            CULL_ALPHA=from-file
            CULL_BETA=from-file
            CULL_GAMMA=from-file
            CULL_DELTA=
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let layered = try await LayeredArguments.resolve(["--alpha", "from-flag", "--config", path], settings: settings,
                                                         environment: ["CULL_ALPHA": "from-env", "CULL_BETA": "from-env"])
        #expect(layered.arguments == ["--alpha", "from-flag", "--config", path, "--beta", "from-env", "--gamma", "from-file"])
        #expect(layered.origins["--alpha"] == .flag && layered.origins["--beta"] == .environment)
        #expect(layered.origins["--gamma"] == .file && layered.origins["--delta"] == .builtIn)
        #expect(layered.file == path)
    }

    @Test("lists are comma-separated, switches true or false; anything else is refused naming the variable and where it came from")
    func listsAndSwitches() async throws {
        let path = try file("CULL_ROOTS=/mnt/photos, /mnt/archive\nCULL_INSECURE=yes\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let layered = try await LayeredArguments.resolve(["--config=\(path)"], settings: settings, environment: [:])
        #expect(layered.arguments == ["--config=\(path)", "--root", "/mnt/photos", "--root", "/mnt/archive", "--insecure"])
        let off = try await LayeredArguments.resolve([], settings: settings, environment: ["CULL_CONFIG": path, "CULL_INSECURE": "0"])
        #expect(!off.arguments.contains("--insecure") && off.origins["--insecure"] == .environment)
        await #expect(throws: ConfigurationValueError.self) {
            _ = try await LayeredArguments.resolve([], settings: settings, environment: ["CULL_CONFIG": path, "CULL_INSECURE": "maybe"])
        }
        do {
            _ = try await LayeredArguments.resolve([], settings: settings, environment: ["CULL_CONFIG": path, "CULL_INSECURE": "maybe"])
        } catch {
            #expect("\(error)".contains("CULL_INSECURE=maybe (from the environment): expected true or false"))
        }
    }

    @Test("a configuration file named with --config or CULL_CONFIG must exist; the default one may be missing")
    func missingFile() async throws {
        do {
            _ = try await LayeredArguments.resolve(["--config", "/nonexistent/cull.env"], settings: settings, environment: [:])
            Issue.record("a missing file named explicitly was accepted")
        } catch let error as ConfigurationFileError {
            #expect(error.description.contains("cannot read the configuration file /nonexistent/cull.env"))
        }
        await #expect(throws: ConfigurationFileError.self) {
            _ = try await LayeredArguments.resolve([], settings: settings, environment: ["CULL_CONFIG": "/nonexistent/cull.env"])
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("cull-\(UUID().uuidString)").path
        if getuid() != 0 {
            let layered = try await LayeredArguments.resolve([], settings: settings, environment: ["XDG_CONFIG_HOME": home])
            #expect(layered.arguments.isEmpty && layered.file == nil)
        }
        let none = try await LayeredArguments.resolve([], settings: settings, environment: ["CULL_CONFIG": "none", "CULL_ALPHA": "a"])
        #expect(none.arguments == ["--alpha", "a"] && none.file == nil, "`none`: no file, the environment still counts")
        #expect(LayeredArguments.defaultFile(environment: ["XDG_CONFIG_HOME": home]) == (getuid() == 0 ? "/etc/cull/cull.env" : home + "/cull/cull.env"))
    }
}
