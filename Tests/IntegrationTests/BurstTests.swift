import Analysis
import Foundation
import Testing

/// Bursts from a camera, through real processes: capture times (DateTimeOriginal with
/// SubSecTimeOriginal, as cameras write them) read by a real worker make other shots of one
/// moment a `similar` group, apart from the near group of an edited copy.
@Suite("Bursts", .timeLimit(.minutes(5)))
struct BurstTests {
    @Test("a burst frame is similar to its shot, an edited copy near; a shot minutes later is neither")
    func burst() async throws {
        let camera = try CameraLibrary()
        let scratch = camera.scratch, library = camera.path
        let scene = SyntheticPhoto.make(seed: 71, width: 1600, height: 1200)
        let next = scene.brightened(by: 1.03)  // the next frame: the light changed a little
        try camera.write("IMG_0001.jpg", scene, subSeconds: "10")
        try camera.write("IMG_0002.jpg", next, subSeconds: "60")
        try camera.write("IMG_0001_small.jpg", scene.resized(width: 800, height: 600), subSeconds: "10")
        try camera.write("IMG_0107.jpg", scene, time: "2024:06:01 10:09:41", subSeconds: "00")

        let run = try await runCommand("cull", ["run", library, "--workers", "2", "--db", scratch.path + "/run.sqlite", "--format", "csv"], in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        var members: [String: (kind: String, paths: Set<String>)] = [:]
        for line in run.stdout.split(separator: "\n").dropFirst() {
            let fields = GroupsCSV.fields(String(line))
            members[fields[0], default: (fields[1], [])].paths.insert(String(fields[2].split(separator: "/").last!))
        }
        let groups = Set(members.values.map { "\($0.kind): \($0.paths.sorted().joined(separator: " "))" })
        #expect(groups == ["near: IMG_0001.jpg IMG_0001_small.jpg", "similar: IMG_0001.jpg IMG_0002.jpg"], "\(run.stdout)")
        #expect(run.stderr.contains("1 duplicate groups, 2 photos, 1 could go ("), "\(run.stderr)")
        #expect(run.stderr.contains("; 1 groups of similar shots"), "\(run.stderr)")
    }
}
