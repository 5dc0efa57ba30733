import Crypto
import Foundation

/// Moving one file safely, and the checks around it. Every call blocks on the file system: the
/// actions run on a thread of their own (`onOwnThread`), never on the cooperative pool.
enum FileMover {
    /// What a path is now: nil when nothing is there.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    static func mtime(_ info: stat) -> Int64 {
        Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// SHA-256 of a file's bytes, read a MiB at a time.
    static func sha256(of path: String) throws(ActionError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ActionError.system("cannot read \(path)", errno) }
        defer { close(descriptor) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ActionError.system("cannot read \(path)", errno)
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return Array(hash.finalize())
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Moves `from` to `to`, which must not exist (nothing is ever overwritten), creating its
    /// folders. Within a file system a rename; across file systems the bytes are copied to a
    /// temporary name beside `to`, flushed, checked against `sha256`, given `from`'s mode and
    /// times, renamed into place, and only then is `from` unlinked.
    static func move(from: String, to: String, sha256: [UInt8], faults: ActionFaults = ActionFaults()) throws(ActionError) {
        guard status(to) == nil else { throw ActionError("\(to) already exists: nothing is overwritten") }
        try makeFolders(for: to)
        if rename(from, to) == 0 {
            syncFolder(of: to)
            syncFolder(of: from)
            return
        }
        guard errno == EXDEV else { throw ActionError.system("cannot move \(from) to \(to)", errno) }
        try copyAcross(from: from, to: to, sha256: sha256, faults: faults)
        guard unlink(from) == 0 else {
            throw ActionError.system("copied \(from) to \(to) but cannot remove the original (both are there now)", errno)
        }
        syncFolder(of: from)
    }

    /// The temporary name a copy across file systems is written under.
    static func partialName(_ path: String) -> String { path + ".cull-partial" }

    private static func copyAcross(from: String, to: String, sha256 expected: [UInt8], faults: ActionFaults) throws(ActionError) {
        let source = open(from, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw ActionError.system("cannot read \(from)", errno) }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0 else { throw ActionError.system("cannot read \(from)", errno) }
        let partial = partialName(to)
        unlink(partial)  // a copy an interrupted run left: this program's own, never a photo
        let target = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard target >= 0 else { throw ActionError.system("cannot create \(partial)", errno) }
        var failure: ActionError?
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = .system("cannot read \(from)", errno)
                break
            }
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(target, $0.baseAddress! + offset, count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = .system("cannot write \(to)", errno)
                    break copying
                }
                offset += written
            }
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        if failure == nil {
            var times = [info.st_atim, info.st_mtim]
            fchmod(target, info.st_mode & 0o7777)
            futimens(target, &times)
            if fsync(target) != 0 { failure = .system("cannot flush \(to) to disk", errno) }
        }
        close(target)
        faults.pause(faults.copyDelay)
        if failure == nil, Array(hash.finalize()) != expected {
            failure = ActionError("\(from) changed while it was copied to \(to): left where it was")
        }
        if let failure {
            unlink(partial)
            throw failure
        }
        guard rename(partial, to) == 0 else {
            let code = errno
            unlink(partial)
            throw ActionError.system("cannot move the copy into place at \(to)", code)
        }
        syncFolder(of: to)
    }

    /// Creates the folders above `path` that are missing (mode 0755).
    static func makeFolders(for path: String) throws(ActionError) {
        let folder = (path as NSString).deletingLastPathComponent
        guard status(folder) == nil else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ActionError("cannot create the folder \(folder): \((error as NSError).localizedDescription)")
        }
    }

    /// Makes a folder's entries (a file created, renamed or removed in it) durable.
    static func syncFolder(of path: String) {
        let descriptor = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// The sidecars that go with a photo: `IMG_1.xmp`, `IMG_1.jpg.xmp`, `IMG_1.aae`,
    /// `IMG_1.json`, `IMG_1.jpg.json` (any case of the extension), existing regular files. One
    /// named after the stem alone also belongs to any other file of that stem in the folder
    /// (the RAW of a RAW+JPEG pair): it stays, unless every such file is in `moving`.
    static func sidecars(of photo: String, moving: Set<String>) -> [String] {
        let folder = (photo as NSString).deletingLastPathComponent
        let name = (photo as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        let sidecarExtensions: Set<String> = ["xmp", "aae", "json"]
        func isSidecarName(_ entry: String) -> Bool { sidecarExtensions.contains((entry as NSString).pathExtension.lowercased()) }
        var found: [String] = []
        for entry in entries where entry != name && isSidecarName(entry) {
            let base = (entry as NSString).deletingPathExtension
            let ext = (entry as NSString).pathExtension.lowercased()
            let path = folder + "/" + entry
            guard let info = status(path), info.st_mode & S_IFMT == S_IFREG else { continue }
            if base == name && ext != "aae" {
                found.append(path)  // IMG_1.jpg.xmp: this file's alone
            } else if base == stem {
                // IMG_1.xmp: shared with every other file named IMG_1.* that is not a sidecar.
                let siblings = entries.filter { $0 != name && !isSidecarName($0) && ($0 as NSString).deletingPathExtension == stem }
                if siblings.allSatisfy({ moving.contains(folder + "/" + $0) }) { found.append(path) }
            }
        }
        return found.sorted()
    }
}
