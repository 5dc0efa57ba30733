import Logging
import ServiceLifecycle
import Shared
import UnixSignals

/// Keeps `cull serve`'s CURVE authentication alive and current: on SIGHUP it reads the
/// authorised keys folder again (a removed key is refused from the next connection on; a folder
/// that cannot be read, or a bad file in it, keeps the keys held and says why), and if the
/// authentication handler's thread ever ends unasked it fails, which stops the daemon: without
/// its handler, libzmq would let every client in.
struct AuthenticationService: Service {
    let handler: ZAPHandler
    let directory: String
    let logger: Logger

    func run() async throws {
        let handler = self.handler
        // Graceful shutdown cancels both tasks; the handler itself closes with the sockets.
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Checked every second: the handler's thread has no async wake-up of its own.
                    while !Task.isCancelled && !handler.hasStopped {
                        try? await Task.sleep(for: .seconds(1))
                    }
                    if handler.hasStopped && !handler.wasAskedToStop {
                        throw CoordinatorError(description: "the authentication handler stopped: cull serve stops rather than accept unchecked workers (see the log above; restart it)")
                    }
                }
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sighup) {
                        await reload()
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    func reload() async {
        let directory = self.directory
        do {
            let keys = try await onOwnThread { try AuthorizedKeys.load(directory: directory) }
            handler.authorize(keys)
            logger.notice("authorised keys read again", metadata: ["folder": "\(directory)", "keys": "\(keys.count)"])
        } catch {
            logger.error("the authorised keys were not read again; the keys held stay in force", metadata: ["error": "\(error)"])
        }
    }
}
