import Analysis
import GRDB
import Shared

/// The walk: files found are stored and cut into jobs while the walk goes on.
extension CullStore {
    /// Records a batch of walked files for a running scan and returns the jobs to dispatch.
    ///
    /// A file already analysed with the same size, mtime and pipeline version keeps its
    /// result (and counts as done); a new or changed one becomes pending in a new job, and so
    /// does an unchanged one whose result an older pipeline wrote or whose failure may pass
    /// (counted in the scan's `analysedAgain`). The scan's `toAnalyse` counts every file queued.
    /// Throws `ScanNotCurrent` when the scan has been cancelled or superseded.
    func recordWalkBatch(scan: ScanRecord, files: [WalkedFile], jobSize: Int) async throws -> [JobSpec] {
        let pipeline = Int64(PhotoAnalyzer.pipelineVersion)
        return try await writer.write { db in
            try Self.requireCurrent(db, scanID: scan.id, generation: scan.generation)
            // A rescan of an unchanged library is this loop, once per file, through SQLite's C API
            // (`RawStatement`), prepared once per batch. First one statement that marks the file
            // seen if its row says it is analysed and unchanged, the same file (device, inode,
            // links) at the same path: one descent of the path index to read the row, and one
            // write to the narrow `photo_seen` table, the whole cost of an unchanged file. The
            // photos row itself is only read: rewriting it wrote about nine times the pages
            // (migration v14). Anything else (new, changed, failed, moved to another inode,
            // walked again after a restart) takes the lookup below.
            let markUnchanged = try RawStatement(db, sql: """
                UPDATE photo_seen SET seen_generation = ?1
                WHERE seen_generation != ?1 AND photo_id = (
                    SELECT id FROM photos
                    WHERE library_id = ?2 AND path = ?3 AND size = ?7 AND mtime_ns = ?8 AND pipeline_version = ?9
                        AND status = 'analysed' AND device = ?4 AND inode = ?5 AND links = ?6)
                """)
            markUnchanged.bind(1, scan.generation)
            markUnchanged.bind(2, scan.libraryID)
            markUnchanged.bind(9, pipeline)
            let lookup = try RawStatement(db, sql: """
                SELECT p.id, p.size, p.mtime_ns, p.status, p.pipeline_version, p.error_kind, s.seen_generation,
                    p.device, p.inode, p.links
                FROM photos p LEFT JOIN photo_seen s ON s.photo_id = p.id WHERE p.library_id = ?1 AND p.path = ?2
                """)
            lookup.bind(1, scan.libraryID)
            let markSeen = try RawStatement(db, sql: """
                INSERT INTO photo_seen (photo_id, seen_generation) VALUES (?2, ?1)
                    ON CONFLICT (photo_id) DO UPDATE SET seen_generation = excluded.seen_generation
                """)
            markSeen.bind(1, scan.generation)
            let recordFile = try RawStatement(db, sql: "UPDATE photos SET device = ?2, inode = ?3, links = ?4 WHERE id = ?1")
            var pending: [(id: Int64, path: String)] = []
            var total = 0, done = 0, failed = 0, analysedAgain = 0
            for file in files {
                markUnchanged.bind(4, file.device)
                markUnchanged.bind(5, file.inode)
                markUnchanged.bind(6, file.links)
                markUnchanged.bind(7, file.size)
                markUnchanged.bind(8, file.mtimeNanoseconds)
                if try markUnchanged.with(file.path, at: 3, { try $0.runCountingChanges() }) == 1 {
                    total += 1
                    done += 1
                    continue
                }
                let found = try lookup.with(file.path, at: 2) { row in
                    try row.step() ? WalkedRow(row) : nil
                }
                guard let row = found else {
                    total += 1
                    try db.execute(sql: """
                        INSERT INTO photos (library_id, path, size, mtime_ns, status, device, inode, links) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [scan.libraryID, file.path, file.size, file.mtimeNanoseconds, PhotoStatus.pending,
                                       file.device, file.inode, file.links])
                    let id = db.lastInsertedRowID
                    markSeen.bind(2, id)
                    try markSeen.run()
                    pending.append((id, file.path))
                    continue
                }
                let id = row.id, status = row.status
                if row.seen == scan.generation { continue }  // walked again after a restart
                total += 1
                markSeen.bind(2, id)
                try markSeen.run()
                let unchanged = row.size == file.size && row.mtime == file.mtimeNanoseconds && row.pipeline == pipeline
                let permanentFailure = status == .failed && ["unsupported", "corrupt", "too_large"].contains(row.errorKind ?? "")
                if unchanged && (status == .analysed || permanentFailure) {
                    if !row.isFile(file) {
                        recordFile.bind(1, id)
                        recordFile.bind(2, file.device)
                        recordFile.bind(3, file.inode)
                        recordFile.bind(4, file.links)
                        try recordFile.run()
                    }
                    done += 1
                    if status == .failed { failed += 1 }
                } else {
                    // The same file as before, with an outcome: redone for a newer pipeline or a
                    // failure that may pass, not because it changed.
                    let sameFile = row.size == file.size && row.mtime == file.mtimeNanoseconds
                    if sameFile && (status == .analysed || status == .failed) { analysedAgain += 1 }
                    try db.execute(sql: """
                        UPDATE photos SET size = ?, mtime_ns = ?, status = ?, device = ?, inode = ?, links = ?,
                            sha256 = NULL, sha256_head_tail = NULL, phash = NULL, dhash = NULL, error_kind = NULL, error_message = NULL
                        WHERE id = ?
                        """, arguments: [file.size, file.mtimeNanoseconds, PhotoStatus.pending, file.device, file.inode, file.links, id])
                    try db.execute(sql: "DELETE FROM photo_features WHERE photo_id = ?", arguments: [id])
                    pending.append((id, file.path))
                }
            }
            try db.execute(sql: """
                UPDATE scans SET total = total + ?, done = done + ?, failed = failed + ?, to_analyse = to_analyse + ?,
                    analysed_again = analysed_again + ? WHERE id = ?
                """, arguments: [total, done, failed, pending.count, analysedAgain, scan.id])
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

/// A photo's row as the walk's lookup reads it (`recordWalkBatch`): what decides whether a
/// walked file is unchanged, and which file (device, inode, links) the path was last time.
private struct WalkedRow {
    let id: Int64, size: Int64, mtime: Int64
    let status: PhotoStatus
    let pipeline: Int64?
    let errorKind: String?
    let seen: Int64?
    let device: Int64?, inode: Int64?, links: Int64?

    init(_ row: RawStatement) {
        id = row.int64(0)
        size = row.int64(1)
        mtime = row.int64(2)
        status = row.text(3).flatMap(PhotoStatus.init(rawValue:)) ?? .pending
        pipeline = row.isNull(4) ? nil : row.int64(4)
        errorKind = row.text(5)
        seen = row.isNull(6) ? nil : row.int64(6)
        device = row.isNull(7) ? nil : row.int64(7)
        inode = row.isNull(8) ? nil : row.int64(8)
        links = row.isNull(9) ? nil : row.int64(9)
    }

    func isFile(_ file: WalkedFile) -> Bool {
        device == file.device && inode == file.inode && links == file.links
    }
}
