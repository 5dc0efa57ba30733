import Foundation

/// Enumerates a library's files depth-first, a batch at a time.
///
/// Every call blocks on `readdir` and `stat` (a network mount can take its time), so it runs
/// on the coordinator's blocking queue (`Coordinator.blockingQueue`) with a deadline, one batch per call: the async side awaits
/// each batch, stores it and asks for the next, which keeps memory bounded however large the
/// library (rule 5) and lets dispatch start while the walk goes on.
final class LibraryWalker: @unchecked Sendable {
    // @unchecked: the mutable state below is touched only inside `next(_:)`, and the scan
    // driver awaits each call before making the next, so no two calls ever overlap.
    private var stack: [String]
    private var current: (path: String, handle: OpaquePointer)?
    private(set) var unreadableDirectories: [(String, String)] = []
    private let root: String
    private let filter: WalkFilter.Matcher

    init(root: String, filter: WalkFilter = WalkFilter()) {
        stack = [root]
        self.root = root
        self.filter = WalkFilter.Matcher(filter)
    }

    deinit {
        if let current { closedir(current.handle) }
    }

    /// Up to `limit` files; an empty array means the walk is over.
    func next(_ limit: Int) -> [WalkedFile] {
        var files: [WalkedFile] = []
        while files.count < limit {
            if current == nil {
                guard let directory = stack.popLast() else { break }
                guard let handle = opendir(directory) else {
                    unreadableDirectories.append((directory, String(cString: strerror(errno))))
                    // Listed like a FIFO, so the scan counts it and names it: its analysis
                    // fails as `unreadable` with the reason ("Permission denied"). Its photos
                    // are in no scan until it can be read; then this entry is simply not seen.
                    files.append(WalkedFile(path: directory, size: 0, mtimeNanoseconds: 0))
                    continue
                }
                current = (directory, handle)
            }
            guard let (directory, handle) = current else { break }
            guard let entry = readdir(handle) else {
                closedir(handle)
                current = nil
                continue
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let path = directory == "/" ? "/" + name : directory + "/" + name
            let relative = filter.needsPath ? String(path.utf8.dropFirst(root == "/" ? 1 : root.utf8.count + 1)) ?? name : name
            // Relative to the open folder: the kernel does not resolve the whole path again for
            // every file (a fifth of a rescan's walk, measured with perf at 220,000 files).
            let folder = dirfd(handle)
            var info = stat()
            guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                if !filter.skipsFolder(name: name, relative: relative) { stack.append(path) }
                continue
            }
            guard filter.takesFile(name: name, relative: relative) else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                files.append(Self.file(path, info))
            case S_IFLNK:
                // A link to a file is a photo; a link to a folder is not followed (cycles). A
                // dangling link is listed so the user hears about it: its analysis fails as
                // `unreadable` ("No such file or directory").
                var target = stat()
                if fstatat(folder, name, &target, 0) == 0 {
                    if target.st_mode & S_IFMT == S_IFREG {
                        files.append(Self.file(path, target))
                    }
                } else {
                    files.append(WalkedFile(path: path, size: 0, mtimeNanoseconds: Self.mtime(info)))
                }
            default:
                // FIFOs, sockets, devices: listed so they are reported (`unreadable`, "not a
                // regular file"); the worker opens without blocking, so a FIFO cannot hang it.
                files.append(WalkedFile(path: path, size: 0, mtimeNanoseconds: Self.mtime(info)))
            }
        }
        return files
    }

    /// A regular file (or a link's target) as the walk reports it.
    private static func file(_ path: String, _ info: stat) -> WalkedFile {
        WalkedFile(path: path, size: Int64(info.st_size), mtimeNanoseconds: mtime(info),
                   device: Int64(bitPattern: UInt64(info.st_dev)), inode: Int64(bitPattern: UInt64(info.st_ino)), links: Int64(info.st_nlink))
    }

    private static func mtime(_ info: stat) -> Int64 {
        Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
