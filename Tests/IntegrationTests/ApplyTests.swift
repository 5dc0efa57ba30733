import Analysis
import Foundation
import Testing

/// `cull apply` and `cull undo` through real processes on a generated, analysed library:
/// undo gives back a byte-identical tree after a full apply, an apply whose target filled up,
/// one that met a permission error midway, and one killed with SIGKILL (between moves, and in
/// the middle of a copy across file systems).
@Suite("Apply and undo", .timeLimit(.minutes(8)))
struct ApplyTests {
    /// Every file's bytes and modification time, and every folder, below a root.
    struct Tree: Equatable {
        var files: [String: Data] = [:]
        var times: [String: Date] = [:]
        var folders: Set<String> = []

        init(_ root: String) throws {
            let fm = FileManager.default
            for relative in try fm.subpathsOfDirectory(atPath: root) {
                let path = root + "/" + relative
                let attributes = try fm.attributesOfItem(atPath: path)
                if attributes[.type] as? FileAttributeType == .typeDirectory {
                    folders.insert(relative)
                } else {
                    files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
                    times[relative] = attributes[.modificationDate] as? Date
                }
            }
        }
    }

    /// A sample library analysed by `cull run`, with sidecars: one of a copy by its full name,
    /// one of a copy by its stem, and one by the stem of a keeper (which must stay).
    static func analysedLibrary(scenes: Int = 3) async throws -> (scratch: Scratch, library: String, db: String) {
        let scratch = try Scratch()
        let library = scratch.path + "/library", db = scratch.path + "/run.sqlite"
        _ = try await writeLibrary(to: library, scenes: scenes, width: 320, height: 240)
        for (name, text) in [("scene00/png.xmp", "<x:xmpmeta/>"), ("scene01/resize50.jpg.json", "{}"), ("scene00/original.xmp", "<keeper/>")]
        where FileManager.default.fileExists(atPath: "\(library)/\(name.split(separator: "/")[0])") {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(library)/\(name)"))
        }
        let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db], in: scratch.path)
        try #require(run.status == 0, "stderr: \(run.stderr)")
        return (scratch, library, db)
    }

    static func moveLines(_ manifest: String) -> Int {
        ((try? String(contentsOfFile: manifest, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("\"op\":\"move\"") }.count
    }

    @Test("a dry run moves nothing and lists what apply then moves; undo gives back the same tree, byte for byte")
    func applyThenUndo() async throws {
        let (scratch, library, db) = try await Self.analysedLibrary()
        let before = try Tree(library)
        let target = scratch.path + "/culled"

        let dry = try await runCommand("cull", ["apply", "--db", db, "--move-to", target, "--dry-run"], in: scratch.path)
        #expect(dry.status == 0, "stderr: \(dry.stderr)")
        #expect(try Tree(library) == before, "a dry run moves nothing")
        let planned = Set(dry.stdout.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: " ")
            return (parts.first == "move" || parts.first == "with") ? String(parts[1].dropFirst(library.count + 1)) : nil
        })
        // The 8 copies of each scene, and the sidecars of the PNG and the half-size copy; the
        // sidecar named after the original's stem stays with the original.
        #expect(planned.count == 3 * 8 + 2, "\(dry.stdout)")
        #expect(planned.contains("scene00/png.xmp") && planned.contains("scene01/resize50.jpg.json") && !planned.contains("scene00/original.xmp"))
        #expect(dry.stdout.contains("would move 24 photos and 2 sidecars from \(library) to \(target), freeing "), "\(dry.stdout)")

        let apply = try await runCommand("cull", ["apply", "--db", db, "--move-to", target], in: scratch.path)
        #expect(apply.status == 0, "stderr: \(apply.stderr)")
        let manifest = try #require(apply.stdout.split(separator: "\n").last.map(String.init))
        #expect(manifest.hasPrefix(target + "/cull-manifest-") && manifest.hasSuffix(".jsonl"))
        let moved = Set(try Tree(target).files.keys.filter { !$0.hasPrefix("cull-manifest-") })
        #expect(moved == planned, "apply moved exactly what the dry run listed")
        #expect(Set(try Tree(library).files.keys) == Set(before.files.keys).subtracting(planned))

        let undo = try await runCommand("cull", ["undo", manifest], in: scratch.path)
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        #expect(undo.stderr.contains("put back 26 files"), "\(undo.stderr)")
        #expect(try Tree(library) == before)
        // Undone twice: nothing to do, nothing lost.
        let again = try await runCommand("cull", ["undo", manifest], in: scratch.path)
        #expect(again.status == 0 && again.stderr.contains("put back 0 files"), "\(again.stderr)")
        #expect(try Tree(library) == before)
    }

    @Test("a file changed since it was analysed is left and reported; the target inside the library is refused")
    func changedAndRefused() async throws {
        let (scratch, library, db) = try await Self.analysedLibrary(scenes: 1)
        try Data("edited since".utf8).write(to: URL(fileURLWithPath: "\(library)/scene00/webp.webp"))
        let target = scratch.path + "/culled"
        let apply = try await runCommand("cull", ["apply", "--db", db, "--move-to", target], in: scratch.path)
        #expect(apply.status == 1)
        #expect(apply.stderr.contains("left \(library)/scene00/webp.webp: changed since it was analysed"), "\(apply.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(library)/scene00/webp.webp"))
        #expect(FileManager.default.fileExists(atPath: "\(target)/scene00/png.png"))
        let inside = try await runCommand("cull", ["apply", "--db", db, "--move-to", library + "/dupes"], in: scratch.path)
        #expect(inside.status == 1 && inside.stderr.contains("is inside the library"), "\(inside.stderr)")
    }

    @Test("permission denied midway: the rest moves, the failure is named, and undo loses nothing")
    func permissionDenied() async throws {
        let (scratch, library, db) = try await Self.analysedLibrary()
        let before = try Tree(library)
        let locked = library + "/scene01"
        chmod(locked, 0o555)  // its files cannot be moved out (root's override is dropped below)
        defer { chmod(locked, 0o755) }
        let target = scratch.path + "/culled"
        let apply = try await runCullAsUser(["apply", "--db", db, "--move-to", target], in: scratch.path)
        #expect(apply.status == 1)
        #expect(apply.stderr.contains("could not move \(locked)/png.png") && apply.stderr.contains("Permission denied"), "\(apply.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(target)/scene00/png.png"), "the other scenes moved")
        #expect(FileManager.default.fileExists(atPath: "\(target)/scene02/png.png"))
        let manifest = try #require(apply.stdout.split(separator: "\n").last.map(String.init))
        let undo = try await runCommand("cull", ["undo", manifest], in: scratch.path)
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        chmod(locked, 0o755)
        #expect(try Tree(library) == before)
    }

    @Test("killed with SIGKILL between moves: apply again continues the same manifest; undo gives back the same tree")
    func killedBetweenMoves() async throws {
        let (scratch, library, db) = try await Self.analysedLibrary()
        let before = try Tree(library)
        let target = scratch.path + "/culled"
        // A second a move: the poll below, on a loaded machine running the other suites beside
        // this one, can come seconds late, and must still find the apply midway (at 200 ms a
        // move, one CI run saw all 26 moves done before the kill).
        let child = try Child("cull", ["apply", "--db", db, "--move-to", target], environment: ["CULL_APPLY_FAULTS": "move-delay-ms=1000"],
                              in: scratch.path)
        var manifest: String?
        try? await waitUntil("four moves in the manifest", timeout: .seconds(60)) {
            manifest = (try? FileManager.default.contentsOfDirectory(atPath: target))?.first { $0.hasPrefix("cull-manifest-") }.map { target + "/" + $0 }
            return manifest.map { Self.moveLines($0) >= 4 } ?? false
        }
        child.signal(SIGKILL)
        _ = await child.wait(timeout: .seconds(10))
        let written = try #require(manifest)
        try #require(Self.moveLines(written) >= 4 && Self.moveLines(written) < 26, "killed midway")

        let again = try await runCommand("cull", ["apply", "--db", db, "--move-to", target], in: scratch.path)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(again.stderr.contains("continuing the interrupted apply recorded in \(written)"), "\(again.stderr)")
        #expect(again.stdout.split(separator: "\n").last.map(String.init) == written)
        #expect(try Tree(library).files.count == before.files.count - 26)

        let undo = try await runCommand("cull", ["undo", written], in: scratch.path)
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        #expect(try Tree(library) == before)
    }
}

/// The same on another file system: a small tmpfs as the target, so every move is a copy,
/// flush, check and unlink. Needs root (mount).
@Suite("Apply across file systems", .timeLimit(.minutes(8)), .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct ApplyAcrossFileSystemsTests {
    /// A tmpfs of `size` mounted in the scratch folder for the test's duration.
    final class SmallDisk: Sendable {
        let path: String
        private init(path: String) { self.path = path }

        static func mount(in scratch: Scratch, size: String) async throws -> SmallDisk {
            let path = scratch.path + "/small-disk"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mount = try await runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path], in: scratch.path, timeout: .seconds(30))
            guard mount.status == 0 else { throw HarnessError("cannot mount a tmpfs at \(path): \(mount.stderr)") }
            return SmallDisk(path: path)
        }

        /// Unmounts lazily (`-l`: at once, even while a killed process's files close); a
        /// millisecond's wait, so the scratch folder is removed after it.
        deinit {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = ["-l", path]
            try? umount.run()
            umount.waitUntilExit()
        }
    }

    @Test("the target fills up: apply stops and says so; undo gives back the same tree")
    func targetFull() async throws {
        let (scratch, library, db) = try await ApplyTests.analysedLibrary()
        let before = try ApplyTests.Tree(library)
        let disk = try await SmallDisk.mount(in: scratch, size: "400k")
        defer { withExtendedLifetime(disk) {} }
        let apply = try await runCommand("cull", ["apply", "--db", db, "--move-to", disk.path + "/culled"], in: scratch.path)
        #expect(apply.status == 1)
        #expect(apply.stderr.contains("is full"), "\(apply.stderr)")
        let manifest = try #require(apply.stdout.split(separator: "\n").last.map(String.init))
        #expect(ApplyTests.moveLines(manifest) > 0, "some moved before it filled up")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: disk.path).allSatisfy { !$0.hasSuffix(".cull-partial") }, "no partial copy left")
        let undo = try await runCommand("cull", ["undo", manifest], in: scratch.path)
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        #expect(try ApplyTests.Tree(library) == before)
    }

    @Test("killed with SIGKILL in the middle of a copy: undo removes the partial copy and gives back the same tree")
    func killedMidCopy() async throws {
        let (scratch, library, db) = try await ApplyTests.analysedLibrary()
        let before = try ApplyTests.Tree(library)
        let disk = try await SmallDisk.mount(in: scratch, size: "64m")
        defer { withExtendedLifetime(disk) {} }
        let target = disk.path + "/culled"
        let child = try Child("cull", ["apply", "--db", db, "--move-to", target], environment: ["CULL_APPLY_FAULTS": "copy-delay-ms=1500"],
                              in: scratch.path)
        let deadline = ContinuousClock.now + .seconds(60)
        var partial = false
        while !partial, ContinuousClock.now < deadline {
            partial = ((try? FileManager.default.subpathsOfDirectory(atPath: target)) ?? []).contains { $0.hasSuffix(".cull-partial") }
            if !partial { try await Task.sleep(for: .milliseconds(20)) }
        }
        child.signal(SIGKILL)
        _ = await child.wait(timeout: .seconds(10))
        try #require(partial, "the apply was caught in a copy")
        let manifest = try #require(try FileManager.default.contentsOfDirectory(atPath: target).first { $0.hasPrefix("cull-manifest-") })
        let undo = try await runCommand("cull", ["undo", target + "/" + manifest], in: scratch.path)
        #expect(undo.status == 0, "stderr: \(undo.stderr)")
        #expect(try ApplyTests.Tree(library) == before)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: target).allSatisfy { !$0.hasSuffix(".cull-partial") })
    }
}
