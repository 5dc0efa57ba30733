import Analysis
import Foundation
import GRDB
import Shared
import Testing

/// Exact duplicates when workers read only the head of camera JPEGs (previews auto): a byte
/// copy is found as identical, a file of the same size, head and tail but another middle is
/// never called identical, and a photo with no copy keeps its head-and-tail digest apart from
/// the whole-file one.
@Suite("Exact duplicates with head-only reads", .timeLimit(.minutes(5)))
struct HeadReadDuplicatesTests {
    static func writeLibrary(_ camera: CameraLibrary) throws {
        let scene = SyntheticPhoto.make(seed: 61, width: 2400, height: 1800), other = SyntheticPhoto.make(seed: 62, width: 2400, height: 1800)
        try camera.write("IMG_0001.jpg", scene)
        try camera.write("IMG_0002.jpg", other)
        let original = try Data(contentsOf: URL(fileURLWithPath: "\(camera.path)/IMG_0001.jpg"))
        try original.write(to: URL(fileURLWithPath: "\(camera.path)/copy.jpg"))
        // The same size, head and tail, another middle: what a head-and-tail digest cannot tell apart.
        var changed = [UInt8](original)
        for offset in stride(from: changed.count / 2, to: changed.count / 2 + 4096, by: 64) { changed[offset] ^= 0x55 }
        try Data(changed).write(to: URL(fileURLWithPath: "\(camera.path)/same-size.jpg"))
    }

    /// `cull run` on `camera`'s library (one worker, a new database): the rows of its groups
    /// that are not similar shots, by file name, with what it printed; `IMG_0001` and its byte
    /// copy `copy` (both `.ext`) are checked to be one group, the copy identical, and
    /// `IMG_0002` in none.
    static func runExpectingCopy(_ camera: CameraLibrary, ext: String) async throws -> (members: [String: [String: String]], stdout: String, db: String) {
        let db = camera.scratch.path + "/run.sqlite"
        let run = try await runCommand("cull", ["run", camera.path, "--workers", "1", "--db", db, "--format", "csv"], in: camera.scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let rows = try GroupsCSV(run.stdout).rows.filter { $0["kind"] != "similar" }
        let members = rows.reduce(into: [String: [String: String]]()) { $0[($1["path"] ?? "").split(separator: "/").last.map(String.init) ?? ""] = $1 }
        let original = try #require(members["IMG_0001.\(ext)"], "\(run.stdout)"), copy = try #require(members["copy.\(ext)"], "\(run.stdout)")
        #expect(original["group"] == copy["group"])
        #expect(Set([original["relation"], copy["relation"]]) == ["keeper", "identical"], "the byte copy is identical: \(run.stdout)")
        #expect(members["IMG_0002.\(ext)"] == nil, "the other photo is in no group")
        return (members, run.stdout, db)
    }

    @Test("the byte copy is identical, the same-size file is not, the lone photo keeps a head-and-tail digest")
    func cascade() async throws {
        let camera = try CameraLibrary()
        try await onOwnThread { try Self.writeLibrary(camera) }
        let size = try FileManager.default.attributesOfItem(atPath: camera.path + "/IMG_0002.jpg")[.size] as? Int ?? 0
        try #require(size > PhotoFetcher.headBytes + PhotoFetcher.tailBytes, "the photos are larger than head and tail")
        let (members, stdout, db) = try await Self.runExpectingCopy(camera, ext: "jpg")
        #expect(members["same-size.jpg"]?["relation"] != "identical", "never identical on a head-and-tail digest: \(stdout)")

        // What was stored: the lone photo has only a head-and-tail digest; the group's members,
        // read whole by verification, whole-file ones.
        let stored = try await onOwnThread {
            try DatabaseQueue(path: db).read { db in
                try Row.fetchAll(db, sql: "SELECT path, sha256 IS NOT NULL AS whole, sha256_head_tail IS NOT NULL AS head_tail FROM photos")
                    .reduce(into: [String: String]()) { $0[($1["path"] as String).split(separator: "/").last.map(String.init) ?? ""] = "\($1["whole"] as Bool) \($1["head_tail"] as Bool)" }
            }
        }
        #expect(stored["IMG_0002.jpg"] == "false true", "\(stored)")
        #expect(stored["copy.jpg"] == "true false" && stored["IMG_0001.jpg"] == "true false", "\(stored)")
    }

    @Test("HEICs read in ranges: the byte copy is identical once verified, the lone photo keeps a head-and-tail digest")
    func heifRanges() async throws {
        let camera = try CameraLibrary()
        _ = try await HEIFPreviewTests.makeHEIC(at: camera.path + "/IMG_0001.heic", seed: 61, width: 2400, height: 1800)
        _ = try await HEIFPreviewTests.makeHEIC(at: camera.path + "/IMG_0002.heic", seed: 62, width: 2400, height: 1800)
        try FileManager.default.copyItem(atPath: camera.path + "/IMG_0001.heic", toPath: camera.path + "/copy.heic")
        let db = try await Self.runExpectingCopy(camera, ext: "heic").db
        let stored = try await onOwnThread {
            try DatabaseQueue(path: db).read { db in
                try Row.fetchAll(db, sql: "SELECT path, sha256 IS NOT NULL AS whole, sha256_head_tail IS NOT NULL AS head_tail, from_preview, capture_time FROM photos")
                    .reduce(into: [String: String]()) {
                        $0[($1["path"] as String).split(separator: "/").last.map(String.init) ?? ""] =
                            "\($1["whole"] as Bool) \($1["head_tail"] as Bool) \($1["from_preview"] as Bool) \($1["capture_time"] as String? ?? "none")"
                    }
            }
        }
        // The lone photo was analysed from its thumbnail's ranges (a head-and-tail digest, the
        // EXIF read from its item); the group's members were read whole by verification.
        #expect(stored["IMG_0002.heic"]?.hasPrefix("false true true") == true && stored["IMG_0002.heic"]?.contains("2024") == true, "\(stored)")
        #expect(stored["copy.heic"]?.hasPrefix("true false false") == true && stored["IMG_0001.heic"]?.hasPrefix("true false false") == true, "\(stored)")
    }
}

