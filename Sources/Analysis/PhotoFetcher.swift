import Crypto
import Foundation

/// The blocking half of analysing a photo: read the file and hash its bytes. Runs on the
/// worker's fetch queue, never on the cooperative pool; on a hung network mount `open` or
/// `read` can block for good, which is why the caller holds a hard timeout.
public enum PhotoFetcher {
    public struct Fetched: Sendable {
        public let bytes: [UInt8]
        public let sha256: [UInt8]
    }

    public static func fetch(path: String, maxFileBytes: Int) throws(AnalysisFailure) -> Fetched {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        // It changes nothing for regular files, the only kind read below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw unreadable(path, errno, doing: "cannot open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw unreadable(path, errno, doing: "cannot stat") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw AnalysisFailure(.unreadable, "\(path): not a regular file (\(fileKind(info.st_mode))); only files can be photos")
        }
        let size = Int(info.st_size)
        guard size <= maxFileBytes else {
            throw AnalysisFailure(.tooLarge, "\(path): \(size) bytes, over the \(maxFileBytes)-byte file limit (raise --max-file-mb to analyse it)")
        }
        guard size > 0 else { throw AnalysisFailure(.corrupt, "\(path): the file is empty (0 bytes)") }

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
        return Fetched(bytes: bytes, sha256: Array(digest))
    }

    private static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a plain file"
        }
    }

    private static func unreadable(_ path: String, _ code: Int32, doing what: String) -> AnalysisFailure {
        AnalysisFailure(.unreadable, "\(path): \(what): \(String(cString: strerror(code)))")
    }
}
