import Analysis
import Foundation
import Shared
import Testing

/// Exports that kept their camera's EXIF, through real processes: an editor's export at full
/// size and a higher quality (so the larger file, which the chain's `largest` would keep) is
/// not the camera original; the camera's own file is kept, with reason `original`.
@Suite("Editors' exports", .timeLimit(.minutes(5)))
struct EditorExportTests {
    @Test("the camera's file is kept over full-size exports that kept its EXIF: one named by its Software, one by a ModifyDate after the shot")
    func cameraFileOverExports() async throws {
        let camera = try CameraLibrary()
        let scratch = camera.scratch, library = camera.path
        try await onOwnThread {
            try FileManager.default.createDirectory(atPath: library + "/exports", withIntermediateDirectories: true)
            let scene = SyntheticPhoto.make(seed: 83, width: 800, height: 600)
            try camera.write("DSC_0412.jpg", scene, quality: 85)
            try camera.write("exports/DSC_0412-Edit.jpg", scene.brightened(by: 1.03),
                             software: "Adobe Photoshop Lightroom Classic 13.0 (Windows)", modified: "2024:06:03 21:14:55", quality: 98)
            try camera.write("exports/DSC_0412-touched.jpg", scene, modified: "2024:06:09 08:30:12", quality: 97)
        }
        let sizes = try ["DSC_0412.jpg", "exports/DSC_0412-Edit.jpg", "exports/DSC_0412-touched.jpg"].map { name in
            try #require(try FileManager.default.attributesOfItem(atPath: "\(library)/\(name)")[.size] as? Int)
        }
        #expect(sizes[0] < sizes[1] && sizes[0] < sizes[2], "the exports are the larger files: \(sizes)")

        let run = try await runCommand("cull", ["run", library, "--workers", "1", "--db", scratch.path + "/run.sqlite", "--format", "json"],
                                       in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        struct Member: Decodable { var path: String; var keeper: Bool; var camera_original: Bool }
        struct Group: Decodable { var kind: String; var keeper_reason: String; var members: [Member] }
        let groups = try JSONDecoder().decode([Group].self, from: Data(run.stdout.utf8))
        let group = try #require(groups.first { $0.kind == "near" }, "\(run.stdout)")
        #expect(group.members.count == 3, "\(run.stdout)")
        #expect(group.members.first(where: \.keeper)?.path == "\(library)/DSC_0412.jpg", "\(run.stdout)")
        #expect(group.keeper_reason == "original")
        #expect(group.members.filter(\.camera_original).map(\.path) == ["\(library)/DSC_0412.jpg"])
    }
}
