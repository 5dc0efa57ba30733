import Analysis
import GRDB
import Shared

/// Jobs: dispatch records, taking jobs back (requeue, split or fail, in one transaction), and
/// what a restart or the reconciliation sweep needs to find them again. Every transition of a
/// job row (here, in `ResultFence` and when a scan ends) is decided by `JobLifecycle` on the
/// row as it is inside the transaction; jobs are only ever created queued (`insertJob`).
extension CullStore {
    /// Records dispatches before they are sent: each job still queued for a running scan gets
    /// a fresh attempt token from a sequence stored in the same transaction, so no token is
    /// ever reused, even across restarts. Returns the tokens of the jobs that may be sent.
    func recordDispatches(_ dispatches: [(jobID: Int64, workerID: String)]) async throws -> [Int64: Int64] {
        guard !dispatches.isEmpty else { return [:] }
        return try await writer.write { db in
            var tokens: [Int64: Int64] = [:]
            var next = try Int64.fetchOne(db, sql: "SELECT value FROM sequences WHERE name = 'attempt'") ?? 0
            for dispatch in dispatches {
                guard let found = try Self.job(db, id: dispatch.jobID), try Self.scanIsRunning(db, scanID: found.0.scanId) else { continue }
                var (record, lifecycle) = found
                next += 1
                do throws(JobLifecycle.Refusal) {
                    try lifecycle.dispatch(attempt: next, to: dispatch.workerID)
                } catch { continue }
                record.apply(lifecycle)
                try record.update(db)
                tokens[dispatch.jobID] = next
            }
            try db.execute(sql: "UPDATE sequences SET value = ? WHERE name = 'attempt'", arguments: [next])
            return tokens
        }
    }

    /// A job to take back from the worker that holds `attempt`.
    struct TakeBackRequest: Sendable {
        var jobID: Int64
        var attempt: Int64
        /// The scheduler's knowledge that this job must run alone (kept for its pieces too).
        var runsAlone = false
        /// Taken back from a worker on probation: the dispatch is not counted against the job.
        var refundsDispatch = false
    }

    /// What taking jobs back did.
    struct TakeBackOutcome: Sendable, Equatable {
        /// Jobs to queue again: requeued ones and the pieces of split ones.
        var queue: [JobSpec] = []
        var split: [Int64] = []
        var failed: [Int64] = []
        /// Requests refused by the fence: the job was not out under that attempt any more.
        var refused = 0
        /// Scans that may have just received their last photo (a failed job counts as done).
        var scansToCheck: Set<Int64> = []
    }

    /// Takes jobs back from their workers in one transaction (deadline passed, worker lost or
    /// left, result not storable). Fenced by attempt: only the named dispatch is taken back.
    /// With dispatches left a job is queued again; otherwise it is split photo by photo, and a
    /// lone photo is recorded failed with `kind`. `suspect` (the worker died) makes the jobs
    /// and their pieces run alone from now on, so the blame for another death is exact.
    func takeBack(_ requests: [TakeBackRequest], kind: Cull_V1_FailureKind, why: String, suspect: Bool,
                  maxDispatches: Int) async throws -> TakeBackOutcome {
        guard !requests.isEmpty else { return TakeBackOutcome() }
        return try await writer.write { db in
            var outcome = TakeBackOutcome()
            for request in requests {
                guard let found = try Self.job(db, id: request.jobID) else { outcome.refused += 1; continue }
                var (record, lifecycle) = found
                let decision: JobLifecycle.TakeBack
                do throws(JobLifecycle.Refusal) {
                    decision = try lifecycle.takeBack(attempt: request.attempt, maxDispatches: maxDispatches, counted: !request.refundsDispatch)
                } catch {
                    outcome.refused += 1
                    continue
                }
                record.apply(lifecycle)
                try record.update(db)
                let runsAlone = request.runsAlone || suspect
                switch decision {
                case .requeue:
                    if var spec = try Self.jobSpec(db, jobID: record.id) {
                        spec.runsAlone = runsAlone
                        outcome.queue.append(spec)
                    }
                case .split:
                    outcome.split.append(record.id)
                    guard let spec = try Self.jobSpec(db, jobID: record.id), let scan = try Self.scan(db, id: record.scanId) else { continue }
                    for photo in spec.photos {
                        var piece = try Self.insertJob(db, scan: scan, photos: [(photo.photoID, photo.path)], fullDecode: spec.fullDecode)
                        piece.runsAlone = runsAlone
                        outcome.queue.append(piece)
                    }
                case .fail:
                    outcome.failed.append(record.id)
                    let message = kind == .timeout
                        ? "analysis did not finish in \(lifecycle.dispatches) attempts (\(why)); skipped"
                        : "\(lifecycle.dispatches) workers were lost while analysing this photo (\(why)); skipped"
                    try Self.failPendingPhotos(db, job: record, kind: kind, message: message)
                    outcome.scansToCheck.insert(record.scanId)
                }
            }
            return outcome
        }
    }

    /// The coordinator's verdict on a photo that kept killing or hanging workers: its pending
    /// photos are recorded failed (the job's scan was checked current by the lifecycle: a job
    /// of an ended scan is abandoned, not dispatched).
    private static func failPendingPhotos(_ db: Database, job: JobRecord, kind: Cull_V1_FailureKind, message: String) throws {
        let generation = try Int64.fetchOne(db, sql: "SELECT generation FROM scans WHERE id = ?", arguments: [job.scanId]) ?? 0
        try db.execute(sql: """
            UPDATE photos SET status = ?, job_id = NULL, analysed_job_id = job_id, error_kind = ?,
                error_message = path || ': ' || ?, analysed_generation = ?, analysed_attempt = ?, pipeline_version = ?
            WHERE job_id = ? AND status = ?
            """, arguments: [PhotoStatus.failed, kind.storageName, message, generation, job.attempt,
                             Int64(PhotoAnalyzer.pipelineVersion), job.id, PhotoStatus.pending])
        let count = db.changesCount
        try db.execute(sql: "UPDATE scans SET done = done + ?, failed = failed + ? WHERE id = ?", arguments: [count, count, job.scanId])
    }

    /// After a restart: every dispatch handed out before it is dead, so dispatched jobs of
    /// running scans are queued again (they get new attempt tokens when sent). Returns every
    /// queued job of a running scan.
    func recoverJobs() async throws -> [JobSpec] {
        try await writer.write { db in
            let open = try JobRecord.fetchAll(db, sql: """
                SELECT j.* FROM jobs j JOIN scans s ON s.id = j.scan_id
                WHERE j.state IN (?, ?) AND s.state = ? ORDER BY j.id
                """, arguments: [JobState.queued, JobState.dispatched, ScanState.running])
            var specs: [JobSpec] = []
            for var record in open {
                var lifecycle = record.lifecycle(generation: 0)
                lifecycle.recover()
                record.apply(lifecycle)
                try record.update(db)
                if let spec = try Self.jobSpec(db, jobID: record.id) { specs.append(spec) }
            }
            return specs
        }
    }

    /// An open job as SQLite has it, for the reconciliation sweep.
    struct OpenJob: Sendable, Equatable {
        var state: JobState
        var attempt: Int64
    }

    /// Jobs of running scans not yet done, with their state and current attempt.
    func openJobs() async throws -> [Int64: OpenJob] {
        try await writer.read { db in
            var jobs: [Int64: OpenJob] = [:]
            for record in try JobRecord.fetchAll(db, sql: """
                SELECT j.* FROM jobs j JOIN scans s ON s.id = j.scan_id WHERE s.state = ? AND j.state IN (?, ?)
                """, arguments: [ScanState.running, JobState.queued, JobState.dispatched]) {
                jobs[record.id] = OpenJob(state: record.state, attempt: record.attempt)
            }
            return jobs
        }
    }

    func jobSpecs(ids: [Int64]) async throws -> [JobSpec] {
        guard !ids.isEmpty else { return [] }
        return try await writer.read { db in try ids.compactMap { try Self.jobSpec(db, jobID: $0) } }
    }

    /// The job's row and its lifecycle (with its scan's generation).
    static func job(_ db: Database, id: Int64) throws -> (JobRecord, JobLifecycle)? {
        guard let record = try JobRecord.fetchOne(db, key: id) else { return nil }
        let generation = try Int64.fetchOne(db, sql: "SELECT generation FROM scans WHERE id = ?", arguments: [record.scanId]) ?? 0
        return (record, record.lifecycle(generation: generation))
    }

    static func scanIsRunning(_ db: Database, scanID: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT state = ? FROM scans WHERE id = ?", arguments: [ScanState.running, scanID]) ?? false
    }

    static func jobSpec(_ db: Database, jobID: Int64) throws -> JobSpec? {
        guard let job = try Row.fetchOne(db, sql: """
            SELECT j.scan_id, j.dispatches, j.full_decode, s.generation FROM jobs j JOIN scans s ON s.id = j.scan_id WHERE j.id = ?
            """, arguments: [jobID]) else { return nil }
        let photos = try Row.fetchAll(db, sql: "SELECT id, path FROM photos WHERE job_id = ? AND status = ? ORDER BY id",
                                      arguments: [jobID, PhotoStatus.pending])
        return JobSpec(jobID: jobID, scanID: job["scan_id"], generation: job["generation"],
                       photos: photos.map { Cull_V1_PhotoRef(id: $0["id"], path: $0["path"]) },
                       dispatches: job["dispatches"], fullDecode: job["full_decode"])
    }
}
