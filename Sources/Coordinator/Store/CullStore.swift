import Analysis
import Foundation
import GRDB
import Shared

/// cull's SQLite state (WAL): libraries, scans, photos, jobs, groups.
///
/// Every method is async and runs its SQL through GRDB's async API, which executes on GRDB's
/// own dispatch queues: `sqlite3_step` never runs on the cooperative pool (rule 1). Writes that
/// store results or scan outcomes check the scan's generation, the job's attempt and the
/// scan's state inside the same transaction (rule 4, the fence).
final class CullStore: Sendable {
    let path: String
    let pool: DatabasePool

    private init(path: String, pool: DatabasePool) {
        self.path = path
        self.pool = pool
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// Opening and migrating block, so they run on `queue`.
    static func open(path: String, on queue: BlockingQueue) async throws -> CullStore {
        try await queue.run(operation: "opening \(path)") {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw StoreError(description: "cannot create the database folder \(directory): \(error.localizedDescription); pass --db with a writable path")
                }
            }
            var configuration = Configuration()
            // Another process holding the write lock (a second `cull serve` on the same file)
            // gets this long before a write fails with "database is locked".
            configuration.busyMode = .timeout(10)
            configuration.label = "cull"
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try Migrations.migrator.migrate(pool)
                return CullStore(path: path, pool: pool)
            } catch let error as DatabaseError {
                throw StoreError(description: Self.explain(error, path: path))
            }
        }
    }

    /// A message that says what happened to the database and what to do.
    static func explain(_ error: DatabaseError, path: String) -> String {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            "the database \(path) is locked by another process (is another `cull serve` or `cull run` using it?); stop it or pass another --db"
        case .SQLITE_READONLY:
            "the database \(path) is read-only; fix its permissions or pass another --db"
        case .SQLITE_FULL:
            "the disk holding \(path) is full; free space, then resume (results so far are safe)"
        case .SQLITE_CANTOPEN:
            "cannot open the database \(path) (missing folder or no permission); pass --db with a writable path"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            "\(path) is not a cull database or is damaged; move it aside and start over, or pass another --db"
        default:
            "database error on \(path): \(error.message ?? "\(error.resultCode)")"
        }
    }

    // MARK: scans

    /// Starts a scan of `root`, superseding any scan of the same library still running.
    func startScan(root: String) async throws -> (scan: ScanRecord, superseded: [Int64]) {
        try await pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO libraries (root) VALUES (?)", arguments: [root])
            let library = try Row.fetchOne(db, sql: "SELECT id, current_generation FROM libraries WHERE root = ?", arguments: [root])!
            let libraryID: Int64 = library["id"]
            let generation: Int64 = library["current_generation"] + 1
            let superseded = try Int64.fetchAll(db, sql: "SELECT id FROM scans WHERE library_id = ? AND state = 'running'", arguments: [libraryID])
            let now = Date().timeIntervalSince1970
            for scanID in superseded {
                try Self.endScan(db, scanID: scanID, state: .superseded, at: now, error: "superseded by a newer scan of the same library")
            }
            try db.execute(sql: "UPDATE libraries SET current_generation = ? WHERE id = ?", arguments: [generation, libraryID])
            try db.execute(sql: """
                INSERT INTO scans (library_id, generation, state, started_at) VALUES (?, ?, 'running', ?)
                """, arguments: [libraryID, generation, now])
            let scanID = db.lastInsertedRowID
            return (try Self.scan(db, id: scanID)!, superseded)
        }
    }

    /// Ends a running scan as cancelled. Returns nil if there is no such scan, else its state
    /// and whether this call cancelled it (false: it had already ended).
    func cancelScan(id: Int64) async throws -> (state: ScanState, cancelledNow: Bool)? {
        try await pool.write { db in
            guard let scan = try Self.scan(db, id: id) else { return nil }
            guard scan.state == .running else { return (scan.state, false) }
            try Self.endScan(db, scanID: id, state: .cancelled, at: Date().timeIntervalSince1970, error: "cancelled by request")
            return (.cancelled, true)
        }
    }

    /// Ends a scan as failed (its walk could not read the library, say).
    func failScan(id: Int64, error: String) async throws {
        try await pool.write { db in
            guard try Self.scan(db, id: id)?.state == .running else { return }
            try Self.endScan(db, scanID: id, state: .failed, at: Date().timeIntervalSince1970, error: error)
        }
    }

    private static func endScan(_ db: Database, scanID: Int64, state: ScanState, at time: Double, error: String?) throws {
        try db.execute(sql: "UPDATE scans SET state = ?, finished_at = ?, error = ? WHERE id = ? AND state = 'running'",
                       arguments: [state.rawValue, time, error, scanID])
        // Its queued and in-flight jobs die with it: late results will meet the fence.
        try db.execute(sql: "UPDATE jobs SET state = 'abandoned' WHERE scan_id = ? AND state IN ('queued', 'dispatched')",
                       arguments: [scanID])
    }

    func scan(id: Int64) async throws -> ScanRecord? {
        try await pool.read { db in try Self.scan(db, id: id) }
    }

    func scans(limit: Int) async throws -> [ScanRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: Self.scanSelect + " ORDER BY s.id DESC LIMIT ?", arguments: [limit]).map(Self.scanRecord)
        }
    }

    func runningScans() async throws -> [ScanRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: Self.scanSelect + " WHERE s.state = 'running' ORDER BY s.id").map(Self.scanRecord)
        }
    }

    /// The newest scan that finished grouping, optionally of one library root.
    func latestDoneScan() async throws -> ScanRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: Self.scanSelect + " WHERE s.state = 'done' ORDER BY s.id DESC LIMIT 1").map(Self.scanRecord)
        }
    }

    private static let scanSelect = """
        SELECT s.*, l.root, (SELECT COUNT(*) FROM groups g WHERE g.scan_id = s.id) AS group_count
        FROM scans s JOIN libraries l ON l.id = s.library_id
        """

    private static func scan(_ db: Database, id: Int64) throws -> ScanRecord? {
        try Row.fetchOne(db, sql: scanSelect + " WHERE s.id = ?", arguments: [id]).map(scanRecord)
    }

    private static func scanRecord(_ row: Row) -> ScanRecord {
        ScanRecord(
            id: row["id"], libraryID: row["library_id"], root: row["root"], generation: row["generation"],
            state: ScanState(rawValue: row["state"]) ?? .failed, walkComplete: row["walk_complete"],
            total: row["total"], done: row["done"], failed: row["failed"], groups: row["group_count"],
            startedAt: row["started_at"], finishedAt: row["finished_at"], error: row["error"])
    }

    // MARK: the walk

    /// Records a batch of walked files for a running scan and returns the jobs to dispatch.
    ///
    /// A file already analysed with the same size, mtime and pipeline version keeps its
    /// result (and counts as done); a new or changed one becomes pending in a new job.
    /// Throws `ScanNotCurrent` when the scan has been cancelled or superseded.
    func recordWalkBatch(scan: ScanRecord, files: [WalkedFile], jobSize: Int) async throws -> [JobSpec] {
        let pipeline = Int64(PhotoAnalyzer.pipelineVersion)
        return try await pool.write { db in
            try Self.requireCurrent(db, scanID: scan.id, generation: scan.generation)
            let lookup = try db.cachedStatement(sql: """
                SELECT id, size, mtime_ns, status, pipeline_version, error_kind, seen_generation
                FROM photos WHERE library_id = ? AND path = ?
                """)
            var pending: [(id: Int64, path: String)] = []
            var total = 0, done = 0, failed = 0
            for file in files {
                if let row = try Row.fetchOne(lookup, arguments: [scan.libraryID, file.path]) {
                    let id: Int64 = row["id"]
                    if (row["seen_generation"] as Int64) == scan.generation { continue }  // walked again after a restart
                    total += 1
                    let unchanged = (row["size"] as Int64) == file.size && (row["mtime_ns"] as Int64) == file.mtimeNanoseconds
                        && (row["pipeline_version"] as Int64?) == pipeline
                    let status: String = row["status"]
                    let permanentFailure = status == "failed"
                        && ["unsupported", "corrupt", "too_large"].contains(row["error_kind"] as String? ?? "")
                    if unchanged && (status == "analysed" || permanentFailure) {
                        try db.execute(sql: "UPDATE photos SET seen_generation = ? WHERE id = ?", arguments: [scan.generation, id])
                        done += 1
                        if status == "failed" { failed += 1 }
                    } else {
                        try db.execute(sql: """
                            UPDATE photos SET size = ?, mtime_ns = ?, seen_generation = ?, status = 'pending',
                                sha256 = NULL, phash = NULL, dhash = NULL, window_phashes = NULL, thumbnail = NULL,
                                error_kind = NULL, error_message = NULL
                            WHERE id = ?
                            """, arguments: [file.size, file.mtimeNanoseconds, scan.generation, id])
                        pending.append((id, file.path))
                    }
                } else {
                    total += 1
                    try db.execute(sql: """
                        INSERT INTO photos (library_id, path, size, mtime_ns, seen_generation, status)
                        VALUES (?, ?, ?, ?, ?, 'pending')
                        """, arguments: [scan.libraryID, file.path, file.size, file.mtimeNanoseconds, scan.generation])
                    pending.append((db.lastInsertedRowID, file.path))
                }
            }
            try db.execute(sql: "UPDATE scans SET total = total + ?, done = done + ?, failed = failed + ? WHERE id = ?",
                           arguments: [total, done, failed, scan.id])
            var jobs: [JobSpec] = []
            for chunk in pending.chunked(into: max(1, jobSize)) {
                jobs.append(try Self.insertJob(db, scan: scan, photos: Array(chunk)))
            }
            return jobs
        }
    }

    func markWalkComplete(scan: ScanRecord) async throws {
        try await pool.write { db in
            try Self.requireCurrent(db, scanID: scan.id, generation: scan.generation)
            try db.execute(sql: "UPDATE scans SET walk_complete = 1 WHERE id = ?", arguments: [scan.id])
        }
    }

    private static func insertJob(_ db: Database, scan: ScanRecord, photos: [(id: Int64, path: String)]) throws -> JobSpec {
        try db.execute(sql: "INSERT INTO jobs (scan_id, state, photo_count) VALUES (?, 'queued', ?)",
                       arguments: [scan.id, photos.count])
        let jobID = db.lastInsertedRowID
        let assign = try db.cachedStatement(sql: "UPDATE photos SET job_id = ? WHERE id = ?")
        for photo in photos { try assign.execute(arguments: [jobID, photo.id]) }
        return JobSpec(jobID: jobID, scanID: scan.id, generation: scan.generation,
                       photos: photos.map { Cull_V1_PhotoRef(id: $0.id, path: $0.path) }, dispatches: 0)
    }

    private static func requireCurrent(_ db: Database, scanID: Int64, generation: Int64) throws {
        let current = try Bool.fetchOne(db, sql: """
            SELECT s.state = 'running' AND s.generation = ? AND l.current_generation = s.generation
            FROM scans s JOIN libraries l ON l.id = s.library_id WHERE s.id = ?
            """, arguments: [generation, scanID]) ?? false
        if !current { throw ScanNotCurrent(scanID: scanID) }
    }

    // MARK: dispatch

    /// Records dispatches before they are sent: each job still queued for a running scan gets
    /// a fresh attempt token from a sequence stored in the same transaction, so no token is
    /// ever reused, even across restarts. Returns the tokens of the jobs that may be sent.
    func recordDispatches(_ dispatches: [(jobID: Int64, workerID: String)]) async throws -> [Int64: Int64] {
        guard !dispatches.isEmpty else { return [:] }
        return try await pool.write { db in
            var tokens: [Int64: Int64] = [:]
            var next = try Int64.fetchOne(db, sql: "SELECT value FROM sequences WHERE name = 'attempt'") ?? 0
            let update = try db.cachedStatement(sql: """
                UPDATE jobs SET attempt = ?, dispatches = dispatches + 1, state = 'dispatched', worker_id = ?
                WHERE id = ? AND state = 'queued'
                  AND EXISTS (SELECT 1 FROM scans s WHERE s.id = jobs.scan_id AND s.state = 'running')
                """)
            for dispatch in dispatches {
                next += 1
                try update.execute(arguments: [next, dispatch.workerID, dispatch.jobID])
                if db.changesCount == 1 { tokens[dispatch.jobID] = next }
            }
            try db.execute(sql: "UPDATE sequences SET value = ? WHERE name = 'attempt'", arguments: [next])
            return tokens
        }
    }

    /// Takes jobs back from the workers that held them (deadline passed, worker lost): their
    /// in-flight attempts stop matching, so late results are dropped. Returns the jobs, with
    /// the photos still pending, that may be dispatched again.
    func requeue(jobIDs: [Int64]) async throws -> [JobSpec] {
        guard !jobIDs.isEmpty else { return [] }
        return try await pool.write { db in
            var specs: [JobSpec] = []
            for jobID in jobIDs {
                try db.execute(sql: "UPDATE jobs SET state = 'queued', worker_id = NULL WHERE id = ? AND state = 'dispatched'",
                               arguments: [jobID])
                if db.changesCount == 1, let spec = try Self.jobSpec(db, jobID: jobID) { specs.append(spec) }
            }
            return specs
        }
    }

    /// Splits a job that used up its attempts into one job per pending photo, so a poison photo
    /// can be found and failed alone.
    func split(jobID: Int64) async throws -> [JobSpec] {
        try await pool.write { db in
            guard let spec = try Self.jobSpec(db, jobID: jobID),
                  let scan = try Self.scan(db, id: spec.scanID), scan.state == .running else { return [] }
            try db.execute(sql: "UPDATE jobs SET state = 'split' WHERE id = ?", arguments: [jobID])
            return try spec.photos.map { photo in
                try Self.insertJob(db, scan: scan, photos: [(photo.photoID, photo.path)])
            }
        }
    }

    /// Records every still-pending photo of a job as failed: the coordinator's verdict on a
    /// photo that kept killing or hanging workers. Fenced like a result.
    func failJob(jobID: Int64, kind: Cull_V1_FailureKind, message: String) async throws -> ResultTally {
        try await pool.write { db in
            var tally = ResultTally()
            guard let row = try Row.fetchOne(db, sql: """
                SELECT j.scan_id, s.generation FROM jobs j JOIN scans s ON s.id = j.scan_id
                JOIN libraries l ON l.id = s.library_id
                WHERE j.id = ? AND j.state IN ('queued', 'dispatched') AND s.state = 'running'
                  AND l.current_generation = s.generation
                """, arguments: [jobID]) else {
                tally.stale += 1
                return tally
            }
            let scanID: Int64 = row["scan_id"]
            let generation: Int64 = row["generation"]
            try db.execute(sql: """
                UPDATE photos SET status = 'failed', job_id = NULL, analysed_job_id = job_id, error_kind = ?,
                    error_message = path || ': ' || ?, analysed_generation = ?,
                    analysed_attempt = (SELECT attempt FROM jobs WHERE id = ?), pipeline_version = ?
                WHERE job_id = ? AND status = 'pending'
                """, arguments: [kind.storageName, message, generation, jobID, Int64(PhotoAnalyzer.pipelineVersion), jobID])
            let count = db.changesCount
            try db.execute(sql: "UPDATE jobs SET state = 'done' WHERE id = ?", arguments: [jobID])
            try db.execute(sql: "UPDATE scans SET done = done + ?, failed = failed + ? WHERE id = ?",
                           arguments: [count, count, scanID])
            tally.applied += 1
            tally.scansToCheck.insert(scanID)
            return tally
        }
    }

    /// Jobs of running scans not yet done: after a restart they are dispatched again (with new
    /// attempt tokens; the old ones stop matching).
    func unfinishedJobs() async throws -> [JobSpec] {
        try await pool.write { db in
            try db.execute(sql: """
                UPDATE jobs SET state = 'queued', worker_id = NULL WHERE state = 'dispatched'
                  AND scan_id IN (SELECT id FROM scans WHERE state = 'running')
                """)
            let ids = try Int64.fetchAll(db, sql: """
                SELECT j.id FROM jobs j JOIN scans s ON s.id = j.scan_id
                WHERE j.state = 'queued' AND s.state = 'running' ORDER BY j.id
                """)
            return try ids.compactMap { try Self.jobSpec(db, jobID: $0) }
        }
    }

    /// Jobs of running scans not yet done, with their state (queued or dispatched).
    func openJobs() async throws -> [Int64: String] {
        try await pool.read { db in
            var jobs: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT j.id, j.state FROM jobs j JOIN scans s ON s.id = j.scan_id
                WHERE s.state = 'running' AND j.state IN ('queued', 'dispatched')
                """) {
                jobs[row["id"]] = row["state"]
            }
            return jobs
        }
    }

    func jobSpecs(ids: [Int64]) async throws -> [JobSpec] {
        guard !ids.isEmpty else { return [] }
        return try await pool.read { db in try ids.compactMap { try Self.jobSpec(db, jobID: $0) } }
    }

    private static func jobSpec(_ db: Database, jobID: Int64) throws -> JobSpec? {
        guard let job = try Row.fetchOne(db, sql: """
            SELECT j.scan_id, j.dispatches, s.generation FROM jobs j JOIN scans s ON s.id = j.scan_id WHERE j.id = ?
            """, arguments: [jobID]) else { return nil }
        let photos = try Row.fetchAll(db, sql: "SELECT id, path FROM photos WHERE job_id = ? AND status = 'pending' ORDER BY id",
                                      arguments: [jobID])
        return JobSpec(jobID: jobID, scanID: job["scan_id"], generation: job["generation"],
                       photos: photos.map { Cull_V1_PhotoRef(id: $0["id"], path: $0["path"]) },
                       dispatches: job["dispatches"])
    }

    // MARK: results

    /// Stores a batch of results in one transaction. Each is applied only if its scan is still
    /// running and current at its generation and its (job, attempt, worker) is the dispatch in
    /// flight, checked here, inside the transaction that writes it.
    func applyResults(_ results: [ReceivedResult]) async throws -> ResultTally {
        guard !results.isEmpty else { return ResultTally() }
        return try await pool.write { db in
            var tally = ResultTally()
            let fence = try db.cachedStatement(sql: """
                SELECT j.state AS job_state, j.attempt, j.worker_id, j.scan_id, s.state AS scan_state, s.generation,
                       l.current_generation
                FROM jobs j JOIN scans s ON s.id = j.scan_id JOIN libraries l ON l.id = s.library_id
                WHERE j.id = ?
                """)
            let analysed = try db.cachedStatement(sql: """
                UPDATE photos SET status = 'analysed', job_id = NULL, analysed_job_id = job_id, analysed_generation = ?, analysed_attempt = ?,
                    pipeline_version = ?, sha256 = ?, phash = ?, dhash = ?, width = ?, height = ?, format = ?,
                    orientation = ?, capture_time = ?, camera_make = ?, camera_model = ?, sharpness = ?,
                    mean_luma = ?, window_phashes = ?, thumbnail = ?, error_kind = NULL, error_message = NULL
                WHERE id = ? AND job_id = ? AND status = 'pending'
                """)
            let failed = try db.cachedStatement(sql: """
                UPDATE photos SET status = 'failed', job_id = NULL, analysed_job_id = job_id, analysed_generation = ?, analysed_attempt = ?,
                    pipeline_version = ?, error_kind = ?, error_message = ?
                WHERE id = ? AND job_id = ? AND status = 'pending'
                """)
            for received in results {
                let result = received.result
                guard let row = try Row.fetchOne(fence, arguments: [result.jobID]) else {
                    tally.duplicate += 1
                    continue
                }
                let scanGeneration: Int64 = row["generation"]
                if (row["scan_state"] as String) != "running" || scanGeneration != result.generation
                    || (row["current_generation"] as Int64) != scanGeneration {
                    tally.stale += 1
                    continue
                }
                if (row["job_state"] as String) != "dispatched" || (row["attempt"] as Int64) != result.attempt
                    || (row["worker_id"] as String?) != received.workerID {
                    tally.duplicate += 1
                    continue
                }
                let pipeline = Int64(received.pipelineVersion)
                var analysedCount = 0, failedCount = 0
                for outcome in result.outcomes {
                    switch outcome.result {
                    case .features(let f):
                        try analysed.execute(arguments: [
                            result.generation, result.attempt, pipeline, f.sha256, Int64(bitPattern: f.phash),
                            Int64(bitPattern: f.dhash), f.width, f.height, f.format, f.orientation,
                            f.captureTime.nilIfEmpty, f.cameraMake.nilIfEmpty, f.cameraModel.nilIfEmpty,
                            f.sharpness, f.meanLuma, WindowHashesColumn.encode(f.windowPhash),
                            f.thumbnail.isEmpty ? nil : f.thumbnail, outcome.photoID, result.jobID,
                        ])
                        analysedCount += db.changesCount
                    case .failure(let failure):
                        try failed.execute(arguments: [
                            result.generation, result.attempt, pipeline, failure.kind.storageName,
                            String(failure.message.prefix(2000)), outcome.photoID, result.jobID,
                        ])
                        failedCount += db.changesCount
                    case nil:
                        continue
                    }
                }
                // A photo the worker gave no outcome for is a worker bug: record it, do not
                // leave it pending forever.
                try db.execute(sql: """
                    UPDATE photos SET status = 'failed', job_id = NULL, analysed_job_id = job_id, analysed_generation = ?,
                        analysed_attempt = ?, pipeline_version = ?, error_kind = 'internal',
                        error_message = path || ': the worker returned no outcome for this photo'
                    WHERE job_id = ? AND status = 'pending'
                    """, arguments: [result.generation, result.attempt, pipeline, result.jobID])
                failedCount += db.changesCount
                try db.execute(sql: "UPDATE jobs SET state = 'done' WHERE id = ?", arguments: [result.jobID])
                let scanID: Int64 = row["scan_id"]
                try db.execute(sql: "UPDATE scans SET done = done + ?, failed = failed + ? WHERE id = ?",
                               arguments: [analysedCount + failedCount, failedCount, scanID])
                tally.applied += 1
                tally.scansToCheck.insert(scanID)
            }
            return tally
        }
    }

    // MARK: grouping

    /// Whether every photo the finished walk found has an outcome.
    func isComplete(scanID: Int64) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT walk_complete = 1 AND done >= total FROM scans WHERE id = ? AND state = 'running'",
                              arguments: [scanID]) ?? false
        }
    }

    func groupingInput(scan: ScanRecord) async throws -> [GroupingPhoto] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, path, sha256, phash, dhash, window_phashes, thumbnail, width, height, size, sharpness FROM photos
                WHERE library_id = ? AND seen_generation = ? AND status = 'analysed'
                """, arguments: [scan.libraryID, scan.generation]).map { row in
                GroupingPhoto(
                    id: row["id"], path: row["path"], sha256: [UInt8]((row["sha256"] as Data?) ?? Data()),
                    pHash: UInt64(bitPattern: row["phash"] ?? 0), dHash: UInt64(bitPattern: row["dhash"] ?? 0),
                    windowPHashes: WindowHashesColumn.decode(row["window_phashes"]),
                    thumbnail: [UInt8]((row["thumbnail"] as Data?) ?? Data()),
                    width: row["width"] ?? 0, height: row["height"] ?? 0, fileSize: row["size"],
                    sharpness: row["sharpness"] ?? 0)
            }
        }
    }

    /// Stores a scan's groups and marks it done, only if it is still the running, current scan
    /// of its library: a cancelled or superseded scan never finalizes.
    func finalize(scan: ScanRecord, groups: [PhotoGroup]) async throws -> Bool {
        try await pool.write { db in
            do {
                try Self.requireCurrent(db, scanID: scan.id, generation: scan.generation)
            } catch is ScanNotCurrent {
                return false
            }
            try db.execute(sql: "DELETE FROM group_members WHERE group_id IN (SELECT id FROM groups WHERE scan_id = ?)", arguments: [scan.id])
            try db.execute(sql: "DELETE FROM groups WHERE scan_id = ?", arguments: [scan.id])
            let member = try db.cachedStatement(sql: "INSERT INTO group_members (group_id, photo_id, distance, is_keeper) VALUES (?, ?, ?, ?)")
            for (index, group) in groups.enumerated() {
                try db.execute(sql: "INSERT INTO groups (scan_id, number, kind, keeper_photo_id) VALUES (?, ?, ?, ?)",
                               arguments: [scan.id, index + 1, group.kind.rawValue, group.keeper])
                let groupID = db.lastInsertedRowID
                for m in group.members {
                    try member.execute(arguments: [groupID, m.photoID, m.distance, m.photoID == group.keeper])
                }
            }
            try db.execute(sql: "UPDATE scans SET state = 'done', finished_at = ? WHERE id = ?",
                           arguments: [Date().timeIntervalSince1970, scan.id])
            return true
        }
    }

    func groups(scanID: Int64) async throws -> [Cull_V1_Group] {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT g.number, g.kind, p.path, m.is_keeper, m.distance, p.width, p.height, p.size
                FROM groups g JOIN group_members m ON m.group_id = g.id JOIN photos p ON p.id = m.photo_id
                WHERE g.scan_id = ? ORDER BY g.number, m.is_keeper DESC, p.path
                """, arguments: [scanID])
            var groups: [Cull_V1_Group] = []
            for row in rows {
                let number: Int64 = row["number"]
                if groups.last?.groupID != number {
                    var group = Cull_V1_Group()
                    group.groupID = number
                    group.kind = row["kind"]
                    groups.append(group)
                }
                var member = Cull_V1_GroupMember()
                member.path = row["path"]
                member.keeper = row["is_keeper"]
                member.distance = row["distance"]
                member.width = row["width"] ?? 0
                member.height = row["height"] ?? 0
                member.fileSize = row["size"]
                groups[groups.count - 1].members.append(member)
            }
            return groups
        }
    }

    /// Photos of a scan that failed, with their reasons (for `cull status --failures`).
    func failures(scan: ScanRecord, limit: Int) async throws -> [(path: String, kind: String, message: String)] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT path, error_kind, error_message FROM photos
                WHERE library_id = ? AND seen_generation = ? AND status = 'failed' ORDER BY path LIMIT ?
                """, arguments: [scan.libraryID, scan.generation, limit]).map { ($0["path"], $0["error_kind"] ?? "", $0["error_message"] ?? "") }
        }
    }
}

extension Cull_V1_PhotoRef {
    init(id: Int64, path: String) {
        self.init()
        photoID = id
        self.path = path
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension DatabaseError: DatabaseErrorDescribable {
    func describe(path: String) -> String { CullStore.explain(self, path: path) }
}
