import Foundation
import GRDB

/// Scans: starting (with a new generation), ending, and reading them back.
extension CullStore {
    /// Starts a scan of `root`, superseding any scan of the same library still running.
    func startScan(root: String, keeperPolicy: KeeperPolicy = KeeperPolicy(), walkFilter: WalkFilter = WalkFilter()) async throws -> (scan: ScanRecord, superseded: [Int64]) {
        let folders = String(decoding: try JSONEncoder().encode(keeperPolicy.referenceFolders), as: UTF8.self)
        let filter = String(decoding: try JSONEncoder().encode(walkFilter), as: UTF8.self)
        return try await writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO libraries (root) VALUES (?)", arguments: [root])
            let library = try Row.fetchOne(db, sql: "SELECT id, current_generation FROM libraries WHERE root = ?", arguments: [root])!
            let libraryID: Int64 = library["id"]
            let generation: Int64 = library["current_generation"] + 1
            let superseded = try Int64.fetchAll(db, sql: "SELECT id FROM scans WHERE library_id = ? AND state = ?",
                                                arguments: [libraryID, ScanState.running])
            let now = Date().timeIntervalSince1970
            for scanID in superseded {
                try Self.endScan(db, scanID: scanID, state: .superseded, at: now, error: "superseded by a newer scan of the same library")
            }
            try db.execute(sql: "UPDATE libraries SET current_generation = ? WHERE id = ?", arguments: [generation, libraryID])
            try db.execute(sql: """
                INSERT INTO scans (library_id, generation, state, started_at, keeper_rules, reference_folders, walk_filter) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [libraryID, generation, ScanState.running, now, keeperPolicy.rulesText, folders, filter])
            return (try Self.scan(db, id: db.lastInsertedRowID)!, superseded)
        }
    }

    /// Ends a running scan as cancelled. Returns nil if there is no such scan, else its state
    /// and whether this call cancelled it (false: it had already ended).
    func cancelScan(id: Int64) async throws -> (state: ScanState, cancelledNow: Bool)? {
        try await writer.write { db in
            guard let scan = try Self.scan(db, id: id) else { return nil }
            guard scan.state == .running else { return (scan.state, false) }
            try Self.endScan(db, scanID: id, state: .cancelled, at: Date().timeIntervalSince1970, error: "cancelled by request")
            return (.cancelled, true)
        }
    }

    /// Ends a scan as failed (its walk could not read the library, say).
    func failScan(id: Int64, error: String) async throws {
        try await writer.write { db in
            guard try Self.scan(db, id: id)?.state == .running else { return }
            try Self.endScan(db, scanID: id, state: .failed, at: Date().timeIntervalSince1970, error: error)
        }
    }

    /// Ends a running scan; its open jobs are abandoned with it, so late results meet the fence.
    private static func endScan(_ db: Database, scanID: Int64, state: ScanState, at time: Double, error: String?) throws {
        try db.execute(sql: "UPDATE scans SET state = ?, finished_at = ?, error = ? WHERE id = ? AND state = ?",
                       arguments: [state, time, error, scanID, ScanState.running])
        let open = try JobRecord.filter(Column("scan_id") == scanID && [JobState.queued, JobState.dispatched].contains(Column("state"))).fetchAll(db)
        for var record in open {
            var lifecycle = record.lifecycle(generation: 0)
            guard lifecycle.abandon() else { continue }
            record.apply(lifecycle)
            try record.update(db)
        }
    }

    func scan(id: Int64) async throws -> ScanRecord? {
        try await writer.read { db in try Self.scan(db, id: id) }
    }

    func scans(limit: Int) async throws -> [ScanRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: Self.scanSelect + " ORDER BY s.id DESC LIMIT ?", arguments: [limit]).map(Self.scanRecord)
        }
    }

    func runningScans() async throws -> [ScanRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: Self.scanSelect + " WHERE s.state = ? ORDER BY s.id", arguments: [ScanState.running]).map(Self.scanRecord)
        }
    }

    /// The newest scan that finished grouping.
    func latestDoneScan() async throws -> ScanRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: Self.scanSelect + " WHERE s.state = ? ORDER BY s.id DESC LIMIT 1", arguments: [ScanState.done]).map(Self.scanRecord)
        }
    }

    private static let scanSelect = """
        SELECT s.*, l.root, (SELECT COUNT(*) FROM groups g WHERE g.scan_id = COALESCE(s.groups_of, s.id)) AS group_count
        FROM scans s JOIN libraries l ON l.id = s.library_id
        """

    static func scan(_ db: Database, id: Int64) throws -> ScanRecord? {
        try Row.fetchOne(db, sql: scanSelect + " WHERE s.id = ?", arguments: [id]).map(scanRecord)
    }

    private static func scanRecord(_ row: Row) -> ScanRecord {
        ScanRecord(
            id: row["id"], libraryID: row["library_id"], root: row["root"], generation: row["generation"],
            state: (row["state"] as ScanState?) ?? .failed, walkComplete: row["walk_complete"],
            total: row["total"], done: row["done"], failed: row["failed"], groups: row["group_count"],
            startedAt: row["started_at"], finishedAt: row["finished_at"], error: row["error"], verifying: row["verifying"],
            toAnalyse: row["to_analyse"], analysedAgain: row["analysed_again"],
            keeperPolicy: keeperPolicy(rules: row["keeper_rules"], folders: row["reference_folders"]),
            walkFilter: (row["walk_filter"] as String?).flatMap { try? JSONDecoder().decode(WalkFilter.self, from: Data($0.utf8)) } ?? WalkFilter())
    }

    /// The policy stored with a scan; the default for scans from before migration v9 (and,
    /// defensively, for a chain this version cannot read).
    private static func keeperPolicy(rules: String?, folders: String?) -> KeeperPolicy {
        let chain = rules.flatMap { try? KeeperPolicy.rules(parsing: $0) } ?? KeeperPolicy.defaultRules
        let references = folders.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        return KeeperPolicy(rules: chain, referenceFolders: references)
    }

    /// Throws `ScanNotCurrent` unless the scan is running at `generation` and that is still its
    /// library's newest generation: the check every fenced write starts with.
    static func requireCurrent(_ db: Database, scanID: Int64, generation: Int64) throws {
        guard try isCurrent(db, scanID: scanID, generation: generation) else { throw ScanNotCurrent(scanID: scanID) }
    }

    static func isCurrent(_ db: Database, scanID: Int64, generation: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT s.state = ? AND s.generation = ? AND l.current_generation = s.generation
            FROM scans s JOIN libraries l ON l.id = s.library_id WHERE s.id = ?
            """, arguments: [ScanState.running, generation, scanID]) ?? false
    }
}
