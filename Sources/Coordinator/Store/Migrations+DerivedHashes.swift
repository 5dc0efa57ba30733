import Analysis
import Foundation
import GRDB

/// The hashes the coordinator works out from a stored row rather than a worker sends
/// (`DerivedHashes`: the turned frame's, v18, and the centre square's, v19), for rows stored
/// before the migration that added them.
///
/// A migration only adds the column and notes which rows wait (`derived_hashes_pending`: the
/// stored ids from the first to the last): working out 800,000 photos' hashes takes about 40 s
/// here (50 µs a row with its read and update), and opening a database has a minute at the
/// most (`CullStore.open`). They are worked out before the next grouping instead
/// (`CullStore.fillDerivedHashes`), a page of rows a transaction, so results are stored between
/// pages and an interrupted fill goes on where it stopped. Rows stored since get theirs from
/// `ResultFence`.
extension Migrations {
    /// Creates the table of rows still waiting and notes every stored row in it (two lookups
    /// of the primary key: no row is read). A table an earlier version left (v18's
    /// `turned_hashes_pending`, whose rows wait for both hashes now) goes.
    static func noteDerivedHashesPending(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE IF EXISTS turned_hashes_pending;
            CREATE TABLE derived_hashes_pending (next_photo_id INTEGER NOT NULL, last_photo_id INTEGER NOT NULL);
            INSERT INTO derived_hashes_pending SELECT MIN(photo_id), MAX(photo_id) FROM photo_features HAVING MAX(photo_id) IS NOT NULL;
            """)
    }

    /// Works out the derived hashes (`DerivedHashes`) of the next `pageSize` waiting rows with
    /// a layout thumbnail (rows without one, before pipeline 3, keep NULL: they meet no turned
    /// or square copy). Returns how many it filled and whether none wait any more. The rows are
    /// read before any is written: none is updated under a statement still stepping through them.
    static func fillDerivedHashesPage(_ db: Database, pageSize: Int) throws -> (filled: Int, done: Bool) {
        guard try db.tableExists("derived_hashes_pending"),
              let range = try Row.fetchOne(db, sql: "SELECT next_photo_id, last_photo_id FROM derived_hashes_pending") else { return (0, true) }
        let first: Int64 = range[0], last: Int64 = range[1]
        let page = try Row.fetchAll(db, sql: """
            SELECT f.photo_id, f.thumbnail, p.width, p.height FROM photo_features f JOIN photos p ON p.id = f.photo_id
            WHERE f.photo_id >= ? AND f.photo_id <= ? ORDER BY f.photo_id LIMIT ?
            """, arguments: [first, last, pageSize])
        let update = try db.cachedStatement(sql: "UPDATE photo_features SET turned_phash = ?, square_phash = ? WHERE photo_id = ?")
        var filled = 0
        for row in page {
            guard let thumbnail = row["thumbnail"] as Data? else { continue }
            let derived = DerivedHashes(thumbnail: [UInt8](thumbnail), width: (row["width"] as Int?) ?? 0, height: (row["height"] as Int?) ?? 0)
            guard derived.turned != nil else { continue }
            try update.execute(arguments: [derived.turned.map { Int64(bitPattern: $0) }, derived.square.map { Int64(bitPattern: $0) },
                                           row["photo_id"] as Int64])
            filled += db.changesCount
        }
        guard page.count == pageSize, let reached = page.last?["photo_id"] as Int64?, reached < last else {
            try db.execute(sql: "DELETE FROM derived_hashes_pending")
            return (filled, true)
        }
        try db.execute(sql: "UPDATE derived_hashes_pending SET next_photo_id = ?", arguments: [reached + 1])
        return (filled, false)
    }
}

extension CullStore {
    /// Whether rows stored before migration v19 still wait for their derived hashes.
    func derivedHashesWaiting() async throws -> Bool {
        try await writer.read { db in
            try db.tableExists("derived_hashes_pending") && (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM derived_hashes_pending") ?? 0) > 0
        }
    }

    /// Works out the derived hashes of the rows stored before migration v19
    /// (`Migrations.fillDerivedHashesPage`), a transaction a page; returns how many it filled.
    /// Asked before each grouping: none wait once the first grouping after the upgrade did it.
    func fillDerivedHashes(pageSize: Int = 10_000) async throws -> Int {
        var filled = 0
        while true {
            try Task.checkCancellation()
            let page = try await writer.write { db in try Migrations.fillDerivedHashesPage(db, pageSize: pageSize) }
            filled += page.filled
            if page.done { return filled }
        }
    }
}

/// The hashes of a row the coordinator works out from what its worker sent (no wire change, no
/// analysis again): the pHash of the frame turned a quarter turn (`TurnedFrame`) and of its
/// centre square (`CentreSquare`), from the layout thumbnail and the frame's size.
struct DerivedHashes: Equatable {
    var turned: UInt64?
    var square: UInt64?

    init(thumbnail: [UInt8], width: Int, height: Int) {
        turned = TurnedFrame.pHash(thumbnail: thumbnail)
        square = CentreSquare.pHash(thumbnail: thumbnail, width: width, height: height)
    }
}
