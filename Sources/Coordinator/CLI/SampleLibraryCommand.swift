import Analysis
import ArgumentParser

struct SampleLibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-library",
        abstract: "Writes a small photo library with known duplicates, to try cull on.",
        discussion: "Each scene is an original JPEG plus an exact copy, a half-size copy, a recompressed copy, a 5% crop, a brightened copy, a copy rotated through EXIF, a PNG and a WebP; plus one text file."
    )

    @Argument(help: "Folder to write into (created if missing).")
    var directory: String

    @Option(help: "How many scenes.")
    var scenes: Int = 12

    func run() async throws {
        let root = absolutePath(directory)
        let entries = try SampleLibrary.write(to: root, scenes: scenes)
        print("wrote \(entries.count) files (\(scenes) scenes) to \(root)")
    }
}
