#if canImport(Glibc)
import Glibc
#endif

/// Path checks shared by the worker's `--root` and the coordinator's `--library-root`.
public enum FilePaths {
    /// `path` with every symbolic link resolved (realpath), or nil with `errno` set. Reads the
    /// file system (a hung mount blocks it): call it on a blocking queue, never the cooperative pool.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` is `folder` or below it, by whole components ("/photos2" is not in "/photos").
    public static func isInside(_ path: String, _ folder: String) -> Bool {
        if folder == "/" { return path.hasPrefix("/") }
        let folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return path == folder || path.hasPrefix(folder + "/")
    }
}
