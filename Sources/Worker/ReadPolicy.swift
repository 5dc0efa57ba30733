import Analysis
import Foundation
import Shared

/// What a worker agrees to read, whatever a job asks: anything that reaches the work endpoint
/// can send a job, and a job names paths and limits. So the worker opens only files under its
/// own `--root` folders (after resolving every symbolic link, so a link inside a root cannot
/// lead out of it), never a relative path or one with `..`, and caps a job's file-size and
/// pixel limits at its own.
///
/// Without roots (no `--root` given) any absolute path is read, as before roots existed: the
/// worker says so in its log at start. `cull run`'s own workers read only what their walk found.
struct ReadPolicy: Sendable, Equatable {
    /// A coordinator's path prefix and where this machine mounts the same folder.
    struct PathMapping: Sendable, Equatable {
        var from: String
        var to: String
    }

    /// Real paths of the folders this worker may read (empty: any absolute path).
    var roots: [String] = []
    /// Applied first, the first that matches: a job's path under `from` is read under `to`.
    var pathMap: [PathMapping] = []
    /// The largest file and image this worker reads or decodes, whatever a job allows.
    var maxFileBytes = AnalysisOptions().maxFileBytes
    var maxPixels = AnalysisOptions().maxPixels

    /// The path to open for `requested` (mapped, links resolved), or why it is refused, with
    /// nothing opened. Resolving links reads the file system: call it on the fetch queue.
    func resolve(_ requested: String) throws(AnalysisFailure) -> String {
        let mapped = Self.map(requested, pathMap)
        guard !roots.isEmpty else { return mapped }
        guard mapped.hasPrefix("/") else {
            throw AnalysisFailure(.unreadable, "\(requested): not an absolute path; this worker reads only files under its --root folders")
        }
        guard !mapped.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
            throw AnalysisFailure(.unreadable, "\(requested): a path with . or .. parts is not read; this worker reads only files under its --root folders")
        }
        guard let real = FilePaths.realPath(mapped) else {
            let reason = String(cString: strerror(errno))
            throw AnalysisFailure(.unreadable, "\(requested): \(reason)")
        }
        guard roots.contains(where: { FilePaths.isInside(real, $0) }) else {
            throw AnalysisFailure(.unreadable, "\(requested): outside the folders this worker may read (--root \(roots.joined(separator: ", "))); not opened")
        }
        return real
    }

    /// A job's options with this worker's limits applied.
    func capped(_ options: AnalysisOptions) -> AnalysisOptions {
        var options = options
        options.maxFileBytes = min(options.maxFileBytes, maxFileBytes)
        options.maxPixels = min(options.maxPixels, maxPixels)
        return options
    }

    static func map(_ path: String, _ mappings: [PathMapping]) -> String {
        for mapping in mappings where FilePaths.isInside(path, mapping.from) {
            return mapping.to + path.dropFirst(mapping.from.count)
        }
        return path
    }

    /// A `--path-map FROM=TO` argument: both absolute.
    static func mapping(_ argument: String) -> PathMapping? {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].hasPrefix("/"), parts[1].hasPrefix("/") else { return nil }
        func trimmed(_ path: String) -> String { path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path }
        return PathMapping(from: trimmed(parts[0]), to: trimmed(parts[1]))
    }
}
