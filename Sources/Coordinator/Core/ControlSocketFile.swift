import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The control endpoint as a Unix socket (`ipc://PATH`, the default): whoever may open the file
/// may scan, cancel and read groups, so its permissions are the control endpoint's access list.
/// Blocking file calls: `CoordinatorSockets.open` runs them on its own thread.
enum ControlSocketFile {
    /// The group whose members may use a root daemon's control socket.
    static let groupName = "cull"

    /// The socket's path, for an ipc:// endpoint.
    static func path(of endpoint: String) -> String? {
        endpoint.hasPrefix("ipc://") ? String(endpoint.dropFirst("ipc://".count)) : nil
    }

    /// Before binding: the socket's folder exists (made 0750 with group `cull` if that group
    /// exists, else 0700: only the owner and the group pass through it), and no daemon listens
    /// at the path already (libzmq would take the path over from it silently).
    static func prepare(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        var info = stat()
        if stat(folder, &info) != 0 {
            let group = cullGroup()
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: group == nil ? 0o700 : 0o750])
            } catch {
                throw CoordinatorError(description: "cannot make the control socket's folder \(folder): \(error.localizedDescription); give --control")
            }
            if let group { _ = chown(folder, UInt32.max, group) }  // a user not in the group keeps 0750 to itself
        }
        if case .listening = EndpointProbe.probe("ipc://" + path, limit: .seconds(1)) {
            throw CoordinatorError(description: "another cull serve listens at ipc://\(path): stop it, or give this one another --control")
        }
    }

    /// After binding: the socket file mode 0660 with group `cull` when that group exists and
    /// can be given, else 0600. Returns the mode and group set, for the log.
    static func restrict(_ path: String) throws -> String {
        if let group = cullGroup(), chown(path, UInt32.max, group) == 0 {
            guard chmod(path, 0o660) == 0 else { throw failure(path) }
            return "0660, group \(groupName)"
        }
        guard chmod(path, 0o600) == 0 else { throw failure(path) }
        return "0600, its owner only"
    }

    private static func cullGroup() -> gid_t? {
        getgrnam(groupName).map { $0.pointee.gr_gid }
    }

    private static func failure(_ path: String) -> CoordinatorError {
        CoordinatorError(description: "cannot set the control socket's permissions on \(path): \(String(cString: strerror(errno)))")
    }
}
