import Analysis
import GRDB
import Shared

/// The walk: files found are stored and cut into jobs while the walk goes on.
extension CullStore {
    /// Records a batch of walked files for a running scan and returns the jobs to dispatch.
    ///
    /// A file already analysed with the same size, mtime and pipeline version keeps its
    /// result (and counts as done); a new or changed one becomes pending in a new job.
    /// Throws `ScanNotCurrent` when the scan has been cancelled or superseded.
    func recordWalkBatch(scan: ScanRecord, files: [WalkedFile], jobSize: Int) async throws -> [JobSpec] {
        let pipeline = Int64(PhotoAnalyzer.pipelineVersion)
        return try await writer.write { db in
            try Self.requireCurrent(db, scanID: scan.id, generation: scan.generation)
            // Columns read by position and statements prepared once: a rescan of an unchanged
            // library is this loop, once per file.
            let lookup = try db.cachedStatement(sql: """
                SELECT id, size, mtime_ns, status, pipeline_version, error_kind, seen_generation
                FROM photos WHERE library_id = ? AND path = ?
                """)
            let markSeen = try db.cachedStatement(sql: "UPDATE photos SET seen_generation = ? WHERE id = ?")
            var pending: [(id: Int64, path: String)] = []
            var total = 0, done = 0, failed = 0
            for file in files {
                guard let row = try Row.fetchOne(lookup, arguments: [scan.libraryID, file.path]) else {
                    total += 1
                    try db.execute(sql: """
                        INSERT INTO photos (library_id, path, size, mtime_ns, seen_generation, status) VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [scan.libraryID, file.path, file.size, file.mtimeNanoseconds, scan.generation, PhotoStatus.pending])
                    pending.append((db.lastInsertedRowID, file.path))
                    continue
                }
                let id: Int64 = row[0]
                if (row[6] as Int64) == scan.generation { continue }  // walked again after a restart
                total += 1
                let unchanged = (row[1] as Int64) == file.size && (row[2] as Int64) == file.mtimeNanoseconds
                    && (row[4] as Int64?) == pipeline
                let status: PhotoStatus = row[3]
                let permanentFailure = status == .failed
                    && ["unsupported", "corrupt", "too_large"].contains(row[5] as String? ?? "")
                if unchanged && (status == .analysed || permanentFailure) {
                    try markSeen.execute(arguments: [scan.generation, id])
                    done += 1
                    if status == .failed { failed += 1 }
                } else {
                    try db.execute(sql: """
                        UPDATE photos SET size = ?, mtime_ns = ?, seen_generation = ?, status = ?,
                            sha256 = NULL, phash = NULL, dhash = NULL, error_kind = NULL, error_message = NULL
                        WHERE id = ?
                        """, arguments: [file.size, file.mtimeNanoseconds, scan.generation, PhotoStatus.pending, id])
                    try db.execute(sql: "DELETE FROM photo_features WHERE photo_id = ?", arguments: [id])
                    pending.append((id, file.path))
                }
            }
            try db.execute(sql: "UPDATE scans SET total = total + ?, done = done + ?, failed = failed + ? WHERE id = ?",
                           arguments: [total, done, failed, scan.id])
            return try pending.chunked(into: max(1, jobSize)).map { chunk in
                try Self.insertJob(db, scan: scan, photos: Array(chunk))
            }
        }
    }

    func markWalkComplete(scan: ScanRecord) async throws {
        try await writer.write { db in
            try Self.requireCurrent(db, scanID: scan.id, generation: scan.generation)
            try db.execute(sql: "UPDATE scans SET walk_complete = 1 WHERE id = ?", arguments: [scan.id])
        }
    }

    /// A new queued job holding `photos` (which become its pending photos); `fullDecode` makes
    /// it a verification job (main images only).
    static func insertJob(_ db: Database, scan: ScanRecord, photos: [(id: Int64, path: String)], fullDecode: Bool = false) throws -> JobSpec {
        try db.execute(sql: "INSERT INTO jobs (scan_id, state, photo_count, full_decode) VALUES (?, ?, ?, ?)",
                       arguments: [scan.id, JobState.queued, photos.count, fullDecode])
        let jobID = db.lastInsertedRowID
        let assign = try db.cachedStatement(sql: "UPDATE photos SET job_id = ? WHERE id = ?")
        for photo in photos { try assign.execute(arguments: [jobID, photo.id]) }
        return JobSpec(jobID: jobID, scanID: scan.id, generation: scan.generation,
                       photos: photos.map { Cull_V1_PhotoRef(id: $0.id, path: $0.path) }, dispatches: 0, fullDecode: fullDecode)
    }
}
