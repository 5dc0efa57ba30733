import Analysis
import Foundation
import Shared
import Testing

/// A camera's RAW and its JPEG of one shot through real processes: a DNG the test writes (the
/// sensor data and an embedded preview) beside the JPEG of the same shot, and an edited copy
/// elsewhere. Grouped together; the pair is kept whole unless `--pairs` names a half.
@Suite("RAW + JPEG pairs end to end", .timeLimit(.minutes(5)))
struct RawPairTests {
    static func writeLibrary(_ camera: CameraLibrary) throws {
        let fm = FileManager.default
        for folder in ["2024", "exports"] { try fm.createDirectory(atPath: "\(camera.path)/\(folder)", withIntermediateDirectories: true) }
        let scene = SyntheticPhoto.make(seed: 91, width: 800, height: 600)
        var options = SampleDNG.Options()
        options.preview = (400, 300)
        try Data(try SampleDNG.encode(scene, options: options)).write(to: URL(fileURLWithPath: "\(camera.path)/2024/IMG_0100.DNG"))
        try camera.write("2024/IMG_0100.JPG", scene)
        let small = scene.resized(width: 400, height: 300)
        try Data(try JPEGEncoder.encode(rgb: small.pixels, width: 400, height: 300, quality: 85))
            .write(to: URL(fileURLWithPath: "\(camera.path)/exports/IMG_0100_web.jpg"))
    }

    @Test("the pair is one group with the web copy, nothing of the pair could go; keep-raw lets the JPEG go, keep-jpeg the DNG")
    func pairs() async throws {
        let camera = try CameraLibrary()
        try await onOwnThread { try Self.writeLibrary(camera) }
        let scratch = camera.scratch, library = camera.path, db = scratch.path + "/run.sqlite"
        func relations(_ stdout: String) throws -> [String: String] {
            let rows = try GroupsCSV(stdout).rows.filter { $0["kind"] == "near" }
            return Dictionary(uniqueKeysWithValues: rows.map { (String($0["path"]!.dropFirst(library.count + 1)), $0["keeper"] == "1" ? "keeper" : $0["relation"]!) })
        }

        let both = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db, "--format", "csv"], in: scratch.path)
        #expect(both.status == 0, "stderr: \(both.stderr)")
        let grouped = try relations(both.stdout)
        #expect(Set(grouped.keys) == ["2024/IMG_0100.DNG", "2024/IMG_0100.JPG", "exports/IMG_0100_web.jpg"], "\(both.stdout)")
        #expect(grouped["exports/IMG_0100_web.jpg"] == "edited copy")
        #expect(Set([grouped["2024/IMG_0100.DNG"], grouped["2024/IMG_0100.JPG"]]) == ["keeper", "raw+jpeg pair"], "\(both.stdout)")
        #expect(both.stderr.contains("1 duplicate groups, 3 photos, 1 could go ("), "\(both.stderr)")

        let keepRaw = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db, "--format", "csv", "--pairs", "keep-raw"], in: scratch.path)
        #expect(keepRaw.status == 0, "stderr: \(keepRaw.stderr)")
        let rawKept = try relations(keepRaw.stdout)
        #expect(rawKept["2024/IMG_0100.DNG"] == "keeper" && rawKept["2024/IMG_0100.JPG"] == "other half of a pair", "\(keepRaw.stdout)")
        #expect(keepRaw.stderr.contains("1 duplicate groups, 3 photos, 2 could go ("), "\(keepRaw.stderr)")

        let target = scratch.path + "/moved"
        let apply = try await runCommand("cull", ["apply", "--db", db, "--move-to", target, "--dry-run", "--pairs", "keep-jpeg"], in: scratch.path)
        #expect(apply.status == 0, "stderr: \(apply.stderr)")
        #expect(apply.stdout.contains("move \(library)/2024/IMG_0100.DNG -> \(target)/2024/IMG_0100.DNG"), "\(apply.stdout)")
        #expect(!apply.stdout.contains("IMG_0100.JPG ->"), "\(apply.stdout)")
    }
}
