import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One coordinator per database: `cull serve` and `cull run` hold an exclusive lock on a file
/// beside it (`DB-cull.lock`) for as long as they run.
///
/// Two coordinators on one database would each recover the other's running scans as crashed,
/// hand out the same jobs twice and fence each other's results away. SQLite's own locks only
/// keep single writes apart, so a second coordinator is refused before it touches anything,
/// with who holds the database. The lock is `flock(2)`: the kernel releases it when the holder
/// exits, however it exits (kill -9 included), so a crashed daemon never locks out its restart.
final class DatabaseLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Takes the lock of `database` for this process, saying `role` (`cull serve`, `cull run`)
    /// and the pid to whoever is refused next. Blocking only on the lock file's open and write.
    static func acquire(database: String, role: String) throws -> DatabaseLock {
        let path = database + "-cull.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CLIError("cannot create \(path), the lock that keeps a second coordinator off \(database): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(descriptor)
            throw CLIError("""
                \(database) is in use by \(holder.isEmpty ? "another cull process" : holder): one coordinator per database. \
                Stop it first, talk to it with cull scan/status/groups, or give this one another --db.
                """)
        }
        let holder = Array("\(role) (pid \(getpid()))\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = holder.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return DatabaseLock(descriptor: descriptor)
    }

    /// Lets go (also done by the kernel at exit).
    func release() { close(descriptor) }
}
