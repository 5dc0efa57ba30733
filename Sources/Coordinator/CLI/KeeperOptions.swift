import ArgumentParser
import Foundation

/// `--prefer` and `--reference`, for `cull run` and `cull scan`: how each group's keeper is
/// chosen (docs/FEATURES.md, "Keepers").
struct KeeperOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The keeper chain, in order of preference: original, pixels, earliest, largest, oldest (default: $CULL_PREFER, else original,pixels,earliest,largest,oldest).",
        discussion: "Photos in reference folders always come first and an upscaled copy never wins; the shorter path decides a tie."))
    var prefer: String?

    @Option(help: ArgumentHelp(
        "A folder inside the scanned one whose photos are always kept and never moved (repeatable).",
        valueName: "dir"))
    var reference: [String] = []

    /// The chain's rule names, from `--prefer` or else `CULL_PREFER`; empty: the default (in
    /// daemon mode, the daemon's).
    func preferredRules(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [String] {
        guard let text = prefer ?? environment["CULL_PREFER"].flatMap({ $0.isEmpty ? nil : $0 }) else { return [] }
        do {
            return try KeeperPolicy.rules(parsing: text).map(\.rawValue)
        } catch {
            throw ValidationError(prefer == nil ? "CULL_PREFER: \(error.description)" : "--prefer: \(error.description)")
        }
    }

    /// The reference folders as absolute paths; each must exist as a folder.
    var referenceFolders: [String] { reference.map(absolutePath) }

    /// Refuses a reference folder outside `root` before anything starts (the coordinator
    /// checks again, for requests from elsewhere).
    func requireInside(_ root: String) throws {
        for folder in referenceFolders where !(folder == root || folder.hasPrefix(root == "/" ? "/" : root + "/")) {
            throw ValidationError("--reference \(folder): a reference folder must be inside the scanned folder \(root) (a scan reads one folder tree: scan the folder that holds both)")
        }
    }

    func validate() throws {
        _ = try preferredRules()
        for folder in referenceFolders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--reference \(folder): no such folder")
            }
        }
    }
}
