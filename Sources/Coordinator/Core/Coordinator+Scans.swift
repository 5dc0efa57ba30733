import Foundation
import Shared

/// Starting, cancelling and superseding scans, and waiting for one to end.
extension Coordinator {
    /// Starts a scan of `root` (an existing directory), superseding a running scan of it.
    /// `prefer` orders the keeper chain (empty: the daemon's default); `referenceFolders` must
    /// lie inside `root`.
    func startScan(root: String, prefer: [String] = [], referenceFolders: [String] = [],
                   walkFilter: WalkFilter = WalkFilter()) async throws -> (scan: ScanRecord, superseded: [Int64]) {
        let root = try await validatedRoot(root)
        let policy = try keeperPolicy(root: root, prefer: prefer, referenceFolders: referenceFolders)
        let filter: WalkFilter
        do { filter = try walkFilter.validated() } catch { throw CoordinatorError(description: error.description) }
        let (scan, superseded) = try await store.startScan(root: root, keeperPolicy: policy, walkFilter: filter)
        for old in superseded { stopJobs(ofScan: old, reason: "superseded by scan \(scan.id)") }
        logger.info("scan started", metadata: ["scan": "\(scan.id)", "root": "\(root)", "generation": "\(scan.generation)", "filter": "\(filter.summary)"])
        scanStartsContinuation.yield(scan)
        return (scan, superseded)
    }

    /// Cancels a running scan: its queued jobs are dropped, in-flight ones cancelled at their
    /// workers, and late results meet the fence. Returns the scan's state afterwards.
    func cancelScan(id: Int64) async throws -> (state: ScanState, cancelledNow: Bool)? {
        let outcome = try await store.cancelScan(id: id)
        if outcome?.cancelledNow == true {
            stopJobs(ofScan: id, reason: "scan \(id) cancelled")
            logger.info("scan cancelled", metadata: ["scan": "\(id)"])
        }
        return outcome
    }

    func stopJobs(ofScan scanID: Int64, reason: String) {
        let byWorker = scheduler.dropJobs(ofScan: scanID)
        for (workerID, jobs) in byWorker {
            guard let routingID = scheduler.routingID(of: workerID) else { continue }
            var cancel = Cull_V1_CancelJobs()
            cancel.jobIds = jobs.map(\.jobID)
            cancel.attempts = jobs.map(\.attempt)
            cancel.reason = reason
            work.send([routingID] + WireCodec.encode(.cancelJobs(cancel)))
        }
    }

    /// The keeper policy a scan request asks for, checked: known rules, each once; reference
    /// folders absolute and inside the scanned folder (a scan reads one folder tree).
    func keeperPolicy(root: String, prefer: [String], referenceFolders: [String]) throws -> KeeperPolicy {
        var policy = configuration.keeperPolicy
        if !prefer.isEmpty {
            do { policy.rules = try KeeperPolicy.rules(parsing: prefer.joined(separator: ",")) } catch {
                throw CoordinatorError(description: error.description)
            }
        }
        policy = KeeperPolicy(rules: policy.rules, referenceFolders: try referenceFolders.map { folder in
            guard folder.hasPrefix("/") else { throw CoordinatorError(description: "\(folder): a reference folder must be an absolute path") }
            var path = (folder as NSString).standardizingPath
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            guard path == root || path.hasPrefix(root == "/" ? "/" : root + "/") else {
                throw CoordinatorError(description: "\(path): a reference folder must be inside the scanned folder \(root) (a scan reads one folder tree: scan the folder that holds both)")
            }
            return path
        })
        return policy
    }

    /// The root as an absolute, existing directory, with no trailing slash.
    private func validatedRoot(_ root: String) async throws -> String {
        guard root.hasPrefix("/") else {
            throw CoordinatorError(description: "\(root): the library path must be absolute")
        }
        var path = (root as NSString).standardizingPath
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let checked = path
        // stat can hang on a dead mount: it runs on the blocking queue, with a deadline.
        let isDirectory = try await blockingQueue.run(timeout: .seconds(30), operation: "checking \(checked)") {
            var info = stat()
            return stat(checked, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
        guard isDirectory else {
            throw CoordinatorError(description: "\(checked): no such directory (check the path; the coordinator must see it as its workers do)")
        }
        let roots = configuration.libraryRoots
        if !roots.isEmpty {
            // Both resolved (a link inside a library folder must not lead a scan out of it);
            // realpath reads the file system: the blocking queue again, with a deadline.
            let inside = try await blockingQueue.run(timeout: .seconds(30), operation: "checking \(checked) against --library-root") {
                guard let real = FilePaths.realPath(checked) else { return false }
                return roots.compactMap(FilePaths.realPath).contains { FilePaths.isInside(real, $0) }
            }
            guard inside else {
                throw CoordinatorError(description: "\(checked): outside the library folders this daemon scans (--library-root \(roots.joined(separator: ", "))); scan a folder inside them, or ask its operator to add one")
            }
        }
        return checked
    }


    /// Waits until a scan reaches a terminal state (for `cull run`), polling SQLite. `check`
    /// can end the wait with an error (the daemon died, no worker is left).
    func waitForScan(id: Int64, check: () -> (any Error)? = { nil }, progress: (ScanRecord) -> Void = { _ in }) async throws -> ScanRecord {
        while true {
            guard let scan = try await store.scan(id: id) else {
                throw CoordinatorError(description: "scan \(id) does not exist")
            }
            progress(scan)
            if let error = check() { throw error }
            if scan.state.isTerminal { return scan }
            // One small read a tick; at 200 ms the wait alone added up to a fifth of a second
            // to every run (a rescan of 220,000 unchanged files ended on 200 ms steps).
            try await Task.sleep(for: .milliseconds(25))
        }
    }
}
