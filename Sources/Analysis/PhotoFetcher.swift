import Crypto
import Foundation

/// The blocking half of analysing a photo: read the file and hash its bytes. Runs on the
/// worker's fetch queue, never on the cooperative pool; on a hung network mount `open` or
/// `read` can block for good, which is why the caller holds a hard timeout.
public enum PhotoFetcher {
    public struct Fetched: Sendable {
        /// The file's bytes, or its head only (`sha256IsHeadTail`).
        public let bytes: [UInt8]
        public let sha256: [UInt8]
        public let fileSize: Int
        /// The digest is of the size, head and tail (`fetchHead`), not of the whole file.
        public let sha256IsHeadTail: Bool
    }

    public static func fetch(path: String, maxFileBytes: Int) throws(AnalysisFailure) -> Fetched {
        let (fd, size) = try openPhoto(path, maxFileBytes: maxFileBytes)
        defer { close(fd) }

        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, size - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, errno, doing: "read failed after \(filled) bytes")
            }
            if n == 0 { break }  // the file shrank while we read it
            filled += n
        }
        if filled < size { bytes.removeSubrange(filled...) }
        let digest = SHA256.hash(data: bytes)
        return Fetched(bytes: bytes, sha256: Array(digest), fileSize: bytes.count, sha256IsHeadTail: false)
    }

    /// `path` opened for reading, and its size, once it is known to be a regular file, within
    /// `maxFileBytes` and not empty; the caller closes it.
    fileprivate static func openPhoto(_ path: String, maxFileBytes: Int) throws(AnalysisFailure) -> (fd: Int32, size: Int) {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        // It changes nothing for regular files, the only kind read.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw unreadable(path, errno, doing: "cannot open") }
        var info = stat()
        let failure: AnalysisFailure?
        if fstat(fd, &info) != 0 {
            failure = unreadable(path, errno, doing: "cannot stat")
        } else if info.st_mode & S_IFMT != S_IFREG {
            failure = AnalysisFailure(.unreadable, "\(path): not a regular file (\(fileKind(info.st_mode))); only files can be photos")
        } else if Int(info.st_size) > maxFileBytes {
            failure = AnalysisFailure(.tooLarge, "\(path): \(info.st_size) bytes, over the \(maxFileBytes)-byte file limit (raise --max-file-mb to analyse it)")
        } else if info.st_size == 0 {
            failure = AnalysisFailure(.corrupt, "\(path): the file is empty (0 bytes)")
        } else {
            failure = nil
        }
        if let failure {
            close(fd)
            throw failure
        }
        return (fd, Int(info.st_size))
    }

    fileprivate static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a plain file"
        }
    }

    fileprivate static func unreadable(_ path: String, _ code: Int32, doing what: String) -> AnalysisFailure {
        AnalysisFailure(.unreadable, "\(path): \(what): \(String(cString: strerror(code)))")
    }
}

extension PhotoFetcher {
    /// How much of a file `fetchHead` reads: the head (a JPEG's EXIF block, at most 64 KiB, and
    /// the markers up to the frame header fit in it), and the tail for the digest (which tells
    /// apart files whose heads agree, and a file whose end was rewritten in place).
    public static let headBytes = 128 * 1024
    public static let tailBytes = 16 * 1024

    /// The head of a file (its first `length` bytes, at least `headBytes`) and a digest of its
    /// size, first `headBytes` and tail (`Fetched.sha256`, with `sha256IsHeadTail`), for
    /// analysing a photo from its embedded preview without reading the rest; nil when the
    /// file is no larger than the head and the tail together (read it whole). The same checks
    /// as `fetch` (a regular file, within `maxFileBytes`, not empty).
    public static func fetchHead(path: String, maxFileBytes: Int, length: Int = headBytes) throws(AnalysisFailure) -> Fetched? {
        precondition(length >= headBytes)
        let (fd, size) = try openPhoto(path, maxFileBytes: maxFileBytes)
        defer { close(fd) }
        guard size > length + tailBytes else { return nil }
        // Read-ahead would fetch what the head does not need (over a network mount, every byte
        // of it crosses the wire): the two reads say exactly what they want.
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM)
        let head = try readRange(fd, path: path, offset: 0, count: length)
        let tail = try readRange(fd, path: path, offset: size - tailBytes, count: tailBytes)
        var hasher = SHA256()
        hasher.update(data: Array("cull head+tail v1".utf8))
        withUnsafeBytes(of: UInt64(size).littleEndian) { hasher.update(bufferPointer: $0) }
        hasher.update(data: head.prefix(headBytes))
        hasher.update(data: tail)
        return Fetched(bytes: head, sha256: Array(hasher.finalize()), fileSize: size, sha256IsHeadTail: true)
    }

    /// The bytes of `ranges` of a file whose head was read (`fetchHead`) and that had
    /// `fileSize` bytes then, one read each, with read-ahead off: a HEIF's thumbnail item and
    /// its small items (`HEIFHead`). A file whose size changed since is an unreadable one.
    public static func fetchRanges(path: String, fileSize: Int, ranges: [Range<Int>], maxFileBytes: Int) throws(AnalysisFailure) -> [(offset: Int, bytes: [UInt8])] {
        let (fd, size) = try openPhoto(path, maxFileBytes: maxFileBytes)
        defer { close(fd) }
        guard size == fileSize else { throw AnalysisFailure(.unreadable, "\(path): the file changed while it was read; scan again") }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM)
        var pieces: [(offset: Int, bytes: [UInt8])] = []
        for range in ranges where !range.isEmpty {
            guard range.lowerBound >= 0, range.upperBound <= size else {
                throw AnalysisFailure(.corrupt, "\(path): an item lies past the end of the file (bytes \(range.lowerBound)..<\(range.upperBound) of \(size))")
            }
            pieces.append((range.lowerBound, try readRange(fd, path: path, offset: range.lowerBound, count: range.count)))
        }
        return pieces
    }

    /// `count` bytes at `offset`; a file that shrank while being read is an unreadable one.
    private static func readRange(_ fd: Int32, path: String, offset: Int, count: Int) throws(AnalysisFailure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, count - filled, off_t(offset + filled)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, errno, doing: "read failed at byte \(offset + filled)")
            }
            if n == 0 { throw AnalysisFailure(.unreadable, "\(path): the file shrank while it was read; scan again") }
            filled += n
        }
        return bytes
    }
}
