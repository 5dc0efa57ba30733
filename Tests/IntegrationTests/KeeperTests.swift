import Analysis
import Foundation
import Shared
import Testing

/// Issue 10's keeper acceptance through real processes: a camera original with its PNG export,
/// an upscaled copy, a resized copy and a byte copy elsewhere, and a three-frame bracket. The
/// original is the keeper, with its reason in the table, JSON and CSV; the bracket is a
/// similar group and nothing of it could go.
@Suite("Keepers", .timeLimit(.minutes(5)))
struct KeeperTests {
    /// A scratch folder with the library written in it, and where `cull run` keeps results.
    /// Images are made on a thread of their own: CPU work that must not hold the cooperative
    /// pool other tests' timeouts run on.
    static func library() async throws -> (scratch: Scratch, library: String, db: String) {
        let camera = try CameraLibrary()
        try await onOwnThread { try writeLibrary(camera) }
        return (camera.scratch, camera.path, camera.scratch.path + "/run.sqlite")
    }

    /// The library, its files' times set as a real one's are: the original first, its copies
    /// and exports later.
    static func writeLibrary(_ camera: CameraLibrary) throws {
        let fm = FileManager.default
        for folder in ["2024", "exports", "backup"] {
            try fm.createDirectory(atPath: "\(camera.path)/\(folder)", withIntermediateDirectories: true)
        }
        let scene = SyntheticPhoto.make(seed: 71, width: 800, height: 600)
        try camera.write("2024/IMG_0001.jpg", scene)
        try fm.copyItem(atPath: "\(camera.path)/2024/IMG_0001.jpg", toPath: "\(camera.path)/backup/IMG_0001.jpg")
        func write(_ name: String, _ bytes: [UInt8]?) throws {
            try Data(try #require(bytes)).write(to: URL(fileURLWithPath: "\(camera.path)/\(name)"))
        }
        try write("exports/IMG_0001.png", PNGDecoder.encode(rgb: scene.pixels, width: 800, height: 600))
        let big = scene.resized(width: 1200, height: 900), small = scene.resized(width: 400, height: 300)
        try write("exports/IMG_0001_upscaled.jpg", try JPEGEncoder.encode(rgb: big.pixels, width: 1200, height: 900, quality: 92))
        try write("exports/IMG_0001_web.jpg", try JPEGEncoder.encode(rgb: small.pixels, width: 400, height: 300, quality: 85))
        // A bracket of another scene: -⅔, 0 and +⅔ EV, a fifth of a second apart.
        let other = SyntheticPhoto.make(seed: 72, width: 800, height: 600)
        for (index, (light, subSeconds)) in [(0.8, "00"), (1.0, "20"), (1.25, "40")].enumerated() {
            try camera.write("2024/IMG_001\(index).jpg", other.brightened(by: light), time: "2024:06:01 11:00:00", subSeconds: subSeconds)
        }
        let june = Date(timeIntervalSince1970: 1_717_236_000)  // 2024-06-01
        for (name, days) in [("2024/IMG_0001.jpg", 0), ("backup/IMG_0001.jpg", 30), ("exports/IMG_0001.png", 2),
                             ("exports/IMG_0001_upscaled.jpg", 3), ("exports/IMG_0001_web.jpg", 4)] {
            try fm.setAttributes([.modificationDate: june.addingTimeInterval(Double(days) * 86_400)], ofItemAtPath: "\(camera.path)/\(name)")
        }
    }

    @Test("the camera original is kept, and says why, in table, JSON and CSV; the bracket is similar and nothing of it could go")
    func acceptance() async throws {
        let (scratch, library, db) = try await Self.library()

        let csvRun = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db, "--format", "csv"], in: scratch.path)
        #expect(csvRun.status == 0, "stderr: \(csvRun.stderr)")
        let csv = try GroupsCSV(csvRun.stdout)
        let near = csv.rows.filter { $0["kind"] == "near" }
        #expect(near.count == 5, "\(csvRun.stdout)")
        let keeper = try #require(near.first { $0["keeper"] == "1" })
        #expect(keeper["path"] == "\(library)/2024/IMG_0001.jpg")
        #expect(keeper["keeper_reason"] == "original")
        #expect(keeper["camera"] == "Cull Bench Optics CB-12 (synthetic 12 MP)")
        #expect(keeper["capture_time"]?.hasPrefix("2024:06:01 10:02:03") == true)
        let relation = Dictionary(uniqueKeysWithValues: near.map { (String($0["path"]!.dropFirst(library.count + 1)), $0["relation"]!) })
        #expect(relation == ["2024/IMG_0001.jpg": "keeper", "backup/IMG_0001.jpg": "identical", "exports/IMG_0001.png": "edited copy",
                             "exports/IMG_0001_upscaled.jpg": "upscaled copy", "exports/IMG_0001_web.jpg": "edited copy"])
        let bracket = csv.rows.filter { $0["kind"] == "similar" }
        #expect(Set(bracket.map { String($0["path"]!.dropFirst(library.count + 1)) }) == ["2024/IMG_0010.jpg", "2024/IMG_0011.jpg", "2024/IMG_0012.jpg"])
        #expect(bracket.allSatisfy { $0["keeper"] == "1" || $0["relation"] == "similar shot" })
        #expect(csvRun.stderr.contains("1 duplicate groups, 5 photos, 4 could go ("), "\(csvRun.stderr)")
        #expect(csvRun.stderr.contains("; 1 groups of similar shots (not duplicates)"), "\(csvRun.stderr)")

        // The same groups from the kept results, as a table and as JSON.
        let table = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db], in: scratch.path)
        #expect(table.status == 0, "stderr: \(table.stderr)")
        #expect(table.stdout.contains("keep: camera original, Cull Bench Optics CB-12 (synthetic 12 MP), 2024-06-01 10:02; 1 identical copy, 2 edited copies, 1 upscaled copy"),
                "\(table.stdout)")
        let json = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db, "--format", "json"], in: scratch.path)
        #expect(json.status == 0, "stderr: \(json.stderr)")
        struct Member: Decodable { var path: String; var keeper: Bool; var relation: String; var camera_original: Bool }
        struct Group: Decodable { var kind: String; var keeper_reason: String; var keeper_reason_text: String; var members: [Member] }
        let groups = try JSONDecoder().decode([Group].self, from: Data(json.stdout.utf8))
        let nearGroup = try #require(groups.first { $0.kind == "near" })
        #expect(nearGroup.keeper_reason == "original")
        #expect(nearGroup.keeper_reason_text.hasPrefix("camera original, Cull Bench Optics"))
        #expect(nearGroup.members.first { $0.keeper }?.path.hasSuffix("/2024/IMG_0001.jpg") == true)
        #expect(nearGroup.members.filter(\.camera_original).count == 2)
        #expect(Set(nearGroup.members.map(\.relation)) == ["keeper", "identical", "edited copy", "upscaled copy"])
    }

    @Test("--reference keeps a reference folder's copy and never counts it as one that could go; --prefer reorders the chain")
    func referenceAndPrefer() async throws {
        let (scratch, library, db) = try await Self.library()
        let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db, "--format", "csv",
                                                "--reference", "\(library)/exports", "--prefer", "largest"], in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let near = try GroupsCSV(run.stdout).rows.filter { $0["kind"] == "near" }
        let keeper = try #require(near.first { $0["keeper"] == "1" })
        // Of the three exports in the reference folder, the largest file that is not upscaled
        // (the reason tells it from the next best, the other export there that is not upscaled).
        #expect(keeper["path"] == "\(library)/exports/IMG_0001.png")
        #expect(keeper["keeper_reason"] == "largest")
        #expect(near.filter { $0["reference"] == "1" }.count == 3)
        // The camera original and its byte copy could go; the reference folder's two others stay.
        #expect(run.stderr.contains("1 duplicate groups, 5 photos, 2 could go ("), "\(run.stderr)")

        let bad = try await runCommand("cull", ["run", library, "--db", db, "--prefer", "sharpest"], in: scratch.path)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("unknown keeper rule 'sharpest'; choose from original, pixels, earliest, largest, oldest"), "\(bad.stderr)")
        let outside = try await runCommand("cull", ["run", library, "--db", db, "--reference", scratch.path], in: scratch.path)
        #expect(outside.status != 0)
        #expect(outside.stderr.contains("must be inside the scanned folder"), "\(outside.stderr)")
    }

    @Test("hard links and links to files count once and never could go; bytes count only where moving frees them")
    func links() async throws {
        let camera = try CameraLibrary()
        let library = camera.path, fm = FileManager.default
        try fm.createDirectory(atPath: "\(library)/albums", withIntermediateDirectories: true)
        try await onOwnThread {
            let scene = SyntheticPhoto.make(seed: 73, width: 640, height: 480)
            try camera.write("IMG_0001.jpg", scene)
            guard let png = PNGDecoder.encode(rgb: scene.pixels, width: 640, height: 480) else { throw HarnessError("PNG encoding failed") }
            try Data(png).write(to: URL(fileURLWithPath: "\(library)/export.png"))
        }
        try fm.linkItem(atPath: "\(library)/IMG_0001.jpg", toPath: "\(library)/albums/best.jpg")      // hard link of the keeper
        try fm.linkItem(atPath: "\(library)/export.png", toPath: "\(library)/albums/export.png")      // hard link of a copy
        try fm.createSymbolicLink(atPath: "\(library)/albums/latest.jpg", withDestinationPath: "\(library)/IMG_0001.jpg")

        let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", camera.scratch.path + "/run.sqlite", "--format", "csv"],
                                       in: camera.scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let rows = try GroupsCSV(run.stdout).rows
        let relation = Dictionary(uniqueKeysWithValues: rows.map { (String($0["path"]!.dropFirst(library.count + 1)), $0["relation"]!) })
        #expect(relation == ["IMG_0001.jpg": "keeper", "albums/best.jpg": "same file", "albums/latest.jpg": "same file",
                             "albums/export.png": "edited copy", "export.png": "same file"], "\(run.stdout)")
        // Two files, one of which could go; it has a second hard link, so moving one path
        // frees nothing.
        #expect(run.stderr.contains("1 duplicate groups, 2 photos, 1 could go (0 B)"), "\(run.stderr)")
    }
}
