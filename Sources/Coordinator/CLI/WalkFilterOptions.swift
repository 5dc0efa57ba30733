import ArgumentParser

/// `--include`, `--exclude` and `--no-default-skips`, for `cull run` and `cull scan`: which
/// files a scan takes (`WalkFilter`; docs/FEATURES.md, "Which files a scan takes").
struct WalkFilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Take only files matching this glob (repeatable; any case). Without a '/' it matches a file name at any depth ('*.jpg'), with one the path below the folder ('2019/*/*.jpg').",
        valueName: "glob"))
    var include: [String] = []

    @Option(help: ArgumentHelp("Leave out files and folders matching this glob (repeatable; as --include). An excluded folder is not entered.", valueName: "glob"))
    var exclude: [String] = []

    @Flag(help: "Also take what is skipped by default: hidden files and folders, @eaDir, #recycle, #snapshot, Lightroom's *.lrdata previews, $RECYCLE.BIN, System Volume Information, lost+found.")
    var noDefaultSkips = false

    var filter: WalkFilter { WalkFilter(include: include, exclude: exclude, defaultSkips: !noDefaultSkips) }

    func validate() throws {
        do { _ = try filter.validated() } catch { throw ValidationError(error.description) }
    }
}
