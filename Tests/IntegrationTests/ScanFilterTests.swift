import Foundation
import Testing

/// `--include`, `--exclude` and `--no-default-skips` through a real `cull run`, and a scan
/// remembering its filter (its summary counts only what it took).
@Suite("Scan filters", .timeLimit(.minutes(5)))
struct ScanFilterTests {
    @Test("--include and --exclude choose the files; the built-in skips leave hidden and Lightroom preview folders out unless --no-default-skips")
    func filters() async throws {
        let scratch = try Scratch()
        let library = scratch.path + "/library", db = scratch.path + "/run.sqlite"
        _ = try await writeLibrary(to: library, scenes: 2, width: 320, height: 240)
        let fm = FileManager.default
        for folder in [".hidden", "Catalog Previews.lrdata"] {
            try fm.createDirectory(atPath: "\(library)/\(folder)", withIntermediateDirectories: true)
            try fm.copyItem(atPath: "\(library)/scene00/original.jpg", toPath: "\(library)/\(folder)/copy.jpg")
        }
        func scanned(_ options: [String]) async throws -> Set<String> {
            let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db] + options, in: scratch.path)
            try #require(run.status == 0, "stderr: \(run.stderr)")
            let photos = try await runCommand("cull", ["photos", "--format", "csv", "--db", db], in: scratch.path)
            return Set(photos.stdout.split(separator: "\n").dropFirst().map { line in
                String(line.split(separator: ",")[0].dropFirst(library.count + 1))
            })
        }
        let jpegsOfOneScene = try await scanned(["--include", "*.JPG", "--exclude", "scene01"])
        #expect(jpegsOfOneScene == ["scene00/original.jpg", "scene00/copy.jpg", "scene00/resize50.jpg", "scene00/jpeg_q40.jpg",
                                    "scene00/crop5.jpg", "scene00/bright15.jpg", "scene00/exif_rot90.jpg"])
        let defaults = try await scanned([])
        #expect(defaults.count == 2 * 9 + 1 && !defaults.contains { $0.hasPrefix(".hidden") || $0.contains(".lrdata") })
        let everything = try await scanned(["--no-default-skips"])
        #expect(everything == defaults.union([".hidden/copy.jpg", "Catalog Previews.lrdata/copy.jpg"]))
        let bad = try await runCommand("cull", ["run", library, "--db", db, "--include", "/scene00/*.jpg"], in: scratch.path)
        #expect(bad.status != 0 && bad.stderr.contains("patterns are relative to the scanned folder"), "\(bad.stderr)")
    }
}
