import Foundation
import Testing

/// `cull photos`: per-photo outcomes and reasons, through real processes, from `cull run`'s
/// database (the daemon's answer is checked in the end-to-end test).
@Suite("cull photos", .timeLimit(.minutes(5)))
struct PhotosCommandTests {
    @Test("--status failed lists what could not be analysed and why, as a table, CSV or JSON; all photos by default")
    func failedPhotos() async throws {
        let scratch = try Scratch()
        let library = scratch.path + "/library", db = scratch.path + "/run.sqlite"
        let entries = try await writeLibrary(to: library, scenes: 1, width: 320, height: 240)
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00]).write(to: URL(fileURLWithPath: library + "/broken.jpg"))
        let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db], in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")

        let table = try await runCommand("cull", ["photos", "--status", "failed", "--db", db], in: scratch.path)
        #expect(table.status == 0, "stderr: \(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(table.stdout)")
        #expect(lines.first?.hasPrefix("failed    \(library)/broken.jpg  corrupt: ") == true, "\(table.stdout)")
        #expect(lines.last?.hasPrefix("failed    \(library)/notes.txt  unsupported: ") == true, "\(table.stdout)")

        let csv = try await runCommand("cull", ["photos", "--status", "FAILED", "--format", "csv", "--db", db], in: scratch.path)
        let rows = csv.stdout.split(separator: "\n")
        #expect(rows.first == "path,status,error_kind,error_message,bytes,width,height,format")
        #expect(rows.count == 3 && rows[1].hasPrefix("\(library)/broken.jpg,failed,corrupt,"), "\(csv.stdout)")

        let json = try await runCommand("cull", ["photos", "--format", "json", "--db", db], in: scratch.path)
        struct Photo: Decodable { var path: String; var status: String; var error_kind: String? }
        let photos = try JSONDecoder().decode([Photo].self, from: Data(json.stdout.utf8))
        #expect(photos.count == entries.count + 1, "every file of the scan")
        #expect(photos.filter { $0.status == "analysed" }.count == entries.count - 1)
        #expect(photos.map(\.path) == photos.map(\.path).sorted())

        let none = try await runCommand("cull", ["photos", "--status", "pending", "--db", db], in: scratch.path)
        #expect(none.stdout == "No photos pending in this scan.\n")
        let missing = try await runCommand("cull", ["photos", "--db", scratch.path + "/none.sqlite"], in: scratch.path)
        #expect(missing.status == 1 && missing.stderr.contains("no results in"), "\(missing.stderr)")
    }
}
