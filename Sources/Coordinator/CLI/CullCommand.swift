import ArgumentParser
import Shared

@main
struct CullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cull",
        abstract: "Finds duplicate and near-duplicate photos in large libraries.",
        discussion: """
            `cull run DIR` does everything in one go on this machine. For large libraries and \
            several machines, run the coordinator daemon (`cull serve`) and any number of \
            `cull-worker` daemons, then drive it with `cull scan`, `cull status` and `cull groups`.
            """,
        version: CullVersion.software,
        subcommands: [
            RunCommand.self, ServeCommand.self, ScanCommand.self, StatusCommand.self,
            CancelCommand.self, GroupsCommand.self, PhotosCommand.self, WorkersCommand.self, ApplyCommand.self, UndoCommand.self,
            SampleLibraryCommand.self, KeygenCommand.self,
        ]
    )
}
