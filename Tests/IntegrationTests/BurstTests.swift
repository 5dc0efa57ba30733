import Analysis
import Foundation
import Shared
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

    @Test("a bracket whose frames share one capture time to the second (no fraction written) is similar by its exposure settings; an edited copy of a frame is near")
    func bracketAtOneSecond() async throws {
        let camera = try CameraLibrary()
        let scratch = camera.scratch, library = camera.path
        try await onOwnThread {
            let scene = SyntheticPhoto.make(seed: 91, width: 1600, height: 1200)
            // -2/3, 0 and +2/3 EV in aperture priority: the exposure time changes with the bias.
            try camera.write("IMG_2001.jpg", scene.brightened(by: 0.8), time: "2024:06:01 11:00:00", exposureTime: (1, 200), exposureBias: (-2, 3))
            try camera.write("IMG_2002.jpg", scene, time: "2024:06:01 11:00:00", exposureTime: (1, 125), exposureBias: (0, 3))
            try camera.write("IMG_2003.jpg", scene.brightened(by: 1.25), time: "2024:06:01 11:00:00", exposureTime: (1, 80), exposureBias: (2, 3))
            try camera.write("IMG_2002_small.jpg", scene.resized(width: 800, height: 600), time: "2024:06:01 11:00:00",
                             exposureTime: (1, 125), exposureBias: (0, 3))
        }
        let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", scratch.path + "/run.sqlite", "--format", "csv"], in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let csv = try GroupsCSV(run.stdout)
        var groups: [String: (kind: String, names: Set<String>)] = [:]
        for row in csv.rows {
            groups[row["group"]!, default: (row["kind"]!, [])].names.insert(String(row["path"]!.split(separator: "/").last!))
        }
        let listed = Set(groups.values.map { "\($0.kind): \($0.names.sorted().joined(separator: " "))" })
        #expect(listed.contains("near: IMG_2002.jpg IMG_2002_small.jpg"), "\(run.stdout)")
        #expect(!listed.contains { $0.hasPrefix("near:") && ($0.contains("IMG_2001") || $0.contains("IMG_2003")) }, "no frame is an edit of another: \(run.stdout)")
        #expect(listed.contains { $0.hasPrefix("similar:") && $0.contains("IMG_2001") && $0.contains("IMG_2003") }, "\(run.stdout)")
    }
}
