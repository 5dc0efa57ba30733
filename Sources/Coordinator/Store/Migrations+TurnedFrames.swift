import Analysis
import Foundation
import GRDB

/// `photo_features.turned_phash` for rows stored before migration v18.
///
/// The migration itself only adds the column and notes which rows wait (`turned_hashes_pending`:
/// the stored ids from the first to the last): working out 800,000 photos' hashes takes about
/// 40 s here (50 µs a row with its read and update), and opening a database has a minute at the
/// most (`CullStore.open`). They are worked out before the next grouping instead
/// (`CullStore.fillTurnedHashes`), a page of rows a transaction, so results are stored between
/// pages and an interrupted fill goes on where it stopped. Rows stored since get theirs from
/// `ResultFence`.
extension Migrations {
    /// Creates the table of rows still waiting and notes every stored row in it (two lookups
    /// of the primary key: no row is read).
    static func noteTurnedHashesPending(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE turned_hashes_pending (next_photo_id INTEGER NOT NULL, last_photo_id INTEGER NOT NULL);
            INSERT INTO turned_hashes_pending SELECT MIN(photo_id), MAX(photo_id) FROM photo_features HAVING MAX(photo_id) IS NOT NULL;
            """)
    }

    /// Works out the turned pHash (`TurnedFrame.pHash`) of the next `pageSize` waiting rows with
    /// a layout thumbnail (rows without one, before pipeline 3, keep NULL: they meet no turned
    /// copy). Returns how many it filled and whether none wait any more. The rows are read
    /// before any is written: none is updated under a statement still stepping through them.
    static func fillTurnedHashesPage(_ db: Database, pageSize: Int) throws -> (filled: Int, done: Bool) {
        guard try db.tableExists("turned_hashes_pending"),
              let range = try Row.fetchOne(db, sql: "SELECT next_photo_id, last_photo_id FROM turned_hashes_pending") else { return (0, true) }
        let first: Int64 = range[0], last: Int64 = range[1]
        let page = try Row.fetchAll(db, sql: """
            SELECT photo_id, thumbnail FROM photo_features WHERE photo_id >= ? AND photo_id <= ? ORDER BY photo_id LIMIT ?
            """, arguments: [first, last, pageSize])
        let update = try db.cachedStatement(sql: "UPDATE photo_features SET turned_phash = ? WHERE photo_id = ? AND turned_phash IS NULL")
        var filled = 0
        for row in page {
            guard let thumbnail = row["thumbnail"] as Data?, let turned = TurnedFrame.pHash(thumbnail: [UInt8](thumbnail)) else { continue }
            try update.execute(arguments: [Int64(bitPattern: turned), row["photo_id"] as Int64])
            filled += db.changesCount
        }
        guard page.count == pageSize, let reached = page.last?["photo_id"] as Int64?, reached < last else {
            try db.execute(sql: "DELETE FROM turned_hashes_pending")
            return (filled, true)
        }
        try db.execute(sql: "UPDATE turned_hashes_pending SET next_photo_id = ?", arguments: [reached + 1])
        return (filled, false)
    }
}

extension CullStore {
    /// Works out the turned pHashes of the rows stored before migration v18
    /// (`Migrations.fillTurnedHashesPage`), a transaction a page; returns how many it filled.
    /// Asked before each grouping: none wait once the first grouping after the upgrade did it.
    func fillTurnedHashes(pageSize: Int = 10_000) async throws -> Int {
        var filled = 0
        while true {
            try Task.checkCancellation()
            let page = try await writer.write { db in try Migrations.fillTurnedHashesPage(db, pageSize: pageSize) }
            filled += page.filled
            if page.done { return filled }
        }
    }
}
