import Analysis
import Foundation
import Testing

/// Embedded previews that lie. An edited copy that kept its camera's EXIF block still carries
/// the original's thumbnail, so with `--previews auto` its features are the original's: before
/// verification such a copy was grouped with the original at distance 0, the one way a unique
/// photo could be suggested for removal. Real processes (`cull run`, real workers), real files:
/// a lossless crop by `jpegtran -copy all` (scripts/setup.sh installs it), a retouched copy saved
/// with the original's EXIF, and another photo carrying the original's thumbnail.
@Suite("Stale previews", .timeLimit(.minutes(5)))
struct StalePreviewTests {
    static let original = SyntheticPhoto.make(seed: 61, width: 1600, height: 1200)
    static let unrelated = SyntheticPhoto.make(seed: 62, width: 1600, height: 1200)

    /// `image` with its left 60% painted over by another scene: a retouch no one would call the
    /// same photo.
    static func retouched(_ image: RGBImage, with other: RGBImage) -> RGBImage {
        var out = image
        for y in 0..<image.height {
            let start = y * image.width * 3
            out.pixels.replaceSubrange(start..<start + image.width * 9 / 5, with: other.pixels[start..<start + image.width * 9 / 5])
        }
        return out
    }

    static func analyse(_ path: String) throws -> PhotoFeatures {
        var options = AnalysisOptions()
        options.usePreviews = true
        return try PhotoAnalyzer.analyze([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, options: options)
    }

    @Test("copies whose preview is stale are never grouped with the photo whose thumbnail they carry; honest copies still are")
    func staleNeverGrouped() async throws {
        let camera = try CameraLibrary()
        let scratch = camera.scratch, library = camera.path
        try camera.write("original.jpg", Self.original)
        try camera.write("resized.jpg", Self.original.resized(width: 800, height: 600))  // an honest copy: its own thumbnail
        try camera.write("retouched.jpg", Self.retouched(Self.original, with: Self.unrelated), exifOf: Self.original)
        try camera.write("other.jpg", Self.unrelated, exifOf: Self.original)
        // The central 40% of the frame, cut without re-encoding; EXIF (and thumbnail) copied as is.
        let crop = try await runCommand("/usr/bin/jpegtran", ["-copy", "all", "-crop", "640x480+480+352", "-outfile",
                                                              "\(library)/cropped.jpg", "\(library)/original.jpg"], in: scratch.path)
        #expect(crop.status == 0, "jpegtran (libjpeg-turbo-progs) failed: \(crop.stderr)")

        // The trap is real: from its preview, every stale file looks exactly like the original.
        let fromPreview = try Self.analyse("\(library)/original.jpg")
        for stale in ["cropped.jpg", "retouched.jpg", "other.jpg"] {
            let features = try Self.analyse("\(library)/\(stale)")
            #expect(features.fromPreview && PerceptualHash.distance(features.pHash, fromPreview.pHash) <= 2, "\(stale)")
        }

        let db = scratch.path + "/run.sqlite"
        let run = try await runCommand("cull", ["run", library, "--workers", "2", "--db", db, "--format", "csv"], in: scratch.path)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("checked again on their main image"), "stderr: \(run.stderr)")
        let groups = try GroupsCSV(run.stdout)
        let originalGroup = try #require(groups.groupOf["\(library)/original.jpg"], "the original and its honest copy form a group")
        #expect(groups.groupOf["\(library)/resized.jpg"] == originalGroup)
        #expect(groups.kindOf[originalGroup] == "near")
        for stale in ["cropped.jpg", "retouched.jpg", "other.jpg"] {
            #expect(groups.groupOf["\(library)/\(stale)"] == nil, "\(stale) is grouped: \(run.stdout)")
        }

        // What verification learnt is kept: a rescan analyses nothing again and agrees.
        let again = try await runCommand("cull", ["run", library, "--workers", "1", "--db", db, "--format", "csv"], in: scratch.path)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(try GroupsCSV(again.stdout).partition == groups.partition)
        #expect(!again.stderr.contains("checked again on their main image"), "nothing to verify again: \(again.stderr)")
    }
}
