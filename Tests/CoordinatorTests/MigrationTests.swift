@testable import Coordinator
import Analysis
import Foundation
import Shared
import GRDB
import Testing

/// Migrations keep what users have: a database of an earlier schema, with data, comes out of
/// the current migrator with every row and feature where the code now reads it.
@Suite("Migrations", .timeLimit(.minutes(5)))
struct MigrationTests {
    @Test("v6 moves the feature blobs to photo_features, keeps every photo, and rebuilds photos narrow")
    func featureBlobsMove() throws {
        let database = try DatabaseQueue()
        try Migrations.migrator.migrate(database, upTo: "v5: grouping digests")
        let windows = Data((0..<400).map { UInt8($0 % 251) }), thumbnail = Data((0..<1024).map { UInt8($0 % 256) })
        try database.write { db in
            try db.execute(sql: "INSERT INTO libraries (id, root, current_generation) VALUES (1, '/lib', 1)")
            try db.execute(sql: """
                INSERT INTO photos (id, library_id, path, size, mtime_ns, seen_generation, status, phash, window_phashes, thumbnail, from_preview)
                VALUES (7, 1, '/lib/a.jpg', 10, 20, 1, 'analysed', 42, ?, ?, 1), (8, 1, '/lib/b.jpg', 11, 21, 1, 'pending', NULL, NULL, NULL, 0)
                """, arguments: [windows, thumbnail])
        }
        try Migrations.migrator.migrate(database)
        try database.read { db in
            let columns = try db.columns(in: "photos").map(\.name)
            #expect(!columns.contains("thumbnail") && !columns.contains("window_phashes") && columns.contains("from_preview"))
            let photos = try Row.fetchAll(db, sql: "SELECT id, path, phash, from_preview FROM photos ORDER BY id")
            #expect(photos.map { $0["path"] as String } == ["/lib/a.jpg", "/lib/b.jpg"])
            #expect(photos[0]["phash"] as Int64? == 42 && photos[0]["from_preview"] as Int64 == 1)
            let features = try Row.fetchAll(db, sql: "SELECT photo_id, window_phashes, thumbnail FROM photo_features")
            #expect(features.count == 1 && features[0]["photo_id"] as Int64 == 7)
            #expect(features.first?["window_phashes"] as Data? == windows && features.first?["thumbnail"] as Data? == thumbnail)
            let indexes = Set(try db.indexes(on: "photos").map(\.name))
            // v8 replaced v6's index on seen_generation by one on status.
            #expect(indexes.isSuperset(of: ["photos_by_job", "photos_by_status"]) && !indexes.contains("photos_by_seen"), "\(indexes)")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
    }

    @Test("v10 releases photos recorded unsupported (TIFF and raw files were), and only those, for the next scan to analyse")
    func unsupportedReleased() throws {
        let versions = try Self.pipelineVersions(migratedFrom: "v9: keepers chosen by a policy, with their reasons; which file each path is; walk filters", photos: """
            INSERT INTO photos (id, library_id, path, size, mtime_ns, seen_generation, status, error_kind, pipeline_version) VALUES
                (1, 1, '/lib/scan.tif', 10, 20, 1, 'failed', 'unsupported', 4),
                (2, 1, '/lib/cut.jpg', 11, 21, 1, 'failed', 'corrupt', 4),
                (3, 1, '/lib/a.jpg', 12, 22, 1, 'analysed', NULL, 4)
            """)
        #expect(versions == [nil, 4, 4])
    }

    @Test("v12 keeps pipeline 6's rows as pipeline 7's, all but analysed WebP photos, which the next scan analyses again")
    func webpAnalysedAgain() throws {
        let versions = try Self.pipelineVersions(migratedFrom: "v11: a digest of a file's head and tail, kept apart from the whole file's", photos: """
            INSERT INTO photos (id, library_id, path, size, mtime_ns, seen_generation, status, error_kind, format, pipeline_version) VALUES
                (1, 1, '/lib/a.jpg', 10, 20, 1, 'analysed', NULL, 'jpeg', 6),
                (2, 1, '/lib/b.webp', 11, 21, 1, 'analysed', NULL, 'webp', 6),
                (3, 1, '/lib/c.png', 12, 22, 1, 'analysed', NULL, 'png', 6),
                (4, 1, '/lib/cut.webp', 13, 23, 1, 'failed', 'corrupt', NULL, 6),
                (5, 1, '/lib/old.webp', 14, 24, 1, 'analysed', NULL, 'webp', 5),
                (6, 1, '/lib/old.jpg', 15, 25, 1, 'analysed', NULL, 'jpeg', 5)
            """)
        #expect(versions == [7, 6, 7, 7, 5, 5])
    }

    @Test("v17 adds the detail layout and stamps no row with pipeline 8: the next scan analyses every earlier row again")
    func detailLayoutsAnalysedAgain() throws {
        let versions = try Self.pipelineVersions(migratedFrom: "v16: exposure settings (a bracket's frames share a capture time, not their settings)", photos: """
            INSERT INTO photos (id, library_id, path, size, mtime_ns, status, error_kind, format, pipeline_version) VALUES
                (1, 1, '/lib/a.jpg', 10, 20, 'analysed', NULL, 'jpeg', 7),
                (2, 1, '/lib/cut.jpg', 11, 21, 'failed', 'corrupt', NULL, 7)
            """)
        #expect(versions == [7, 7])
        #expect(PhotoAnalyzer.pipelineVersion == 8, "v17 is pipeline 8's migration: a later pipeline needs one of its own")
        let database = try DatabaseQueue()
        try Migrations.migrator.migrate(database)
        #expect(try database.read { try $0.columns(in: "photo_features").map(\.name) }.contains("detail"))
    }

    @Test("v18 and v19 add the turned frames' and centre squares' hashes and note the stored rows; they get them a page at a time before grouping, rows without a thumbnail keep NULL")
    func derivedHashesFilled() throws {
        let database = try DatabaseQueue()
        try Migrations.migrator.migrate(database, upTo: "v17: detail layouts of textured photos (pipeline 8)")
        let thumbnails = (1...5).map { seed in (0..<1024).map { UInt8(truncatingIfNeeded: ($0 % 32) * seed + ($0 / 32) * (6 - seed)) } }
        // Wide frames but the third, which is square (no centre square of its own).
        let sizes = [(1600, 900), (900, 600), (1000, 1000), (600, 900), (1280, 800), (1600, 900)]
        try database.write { db in
            try db.execute(sql: "INSERT INTO libraries (id, root, current_generation) VALUES (1, '/lib', 1)")
            for id in 1...6 {
                try db.execute(sql: "INSERT INTO photos (id, library_id, path, size, mtime_ns, status, width, height) VALUES (?, 1, ?, 1, 1, 'analysed', ?, ?)",
                               arguments: [id, "/lib/\(id).jpg", sizes[id - 1].0, sizes[id - 1].1])
                // Photo 6 is a row from before pipeline 3: no thumbnail.
                try db.execute(sql: "INSERT INTO photo_features (photo_id, thumbnail) VALUES (?, ?)",
                               arguments: [id, id <= 5 ? Data(thumbnails[id - 1]) : nil])
            }
        }
        // v18 alone, as a database of the forty-third rules has it, then the rest.
        try Migrations.migrator.migrate(database, upTo: "v18: the pHash of each frame turned a quarter turn")
        try Migrations.migrator.migrate(database)
        func stored() throws -> [[Int64?]] {
            try database.read { db in
                try Row.fetchAll(db, sql: "SELECT turned_phash, square_phash FROM photo_features ORDER BY photo_id").map { [$0[0] as Int64?, $0[1] as Int64?] }
            }
        }
        #expect(try stored() == Array(repeating: [nil, nil], count: 6), "the migrations read no row")
        #expect(try database.read { try $0.tableExists("turned_hashes_pending") } == false, "v19 takes over v18's waiting rows")
        // A row stored since (`ResultFence` works its hashes out) is left as it is.
        try database.write { db in
            try db.execute(sql: "INSERT INTO photos (id, library_id, path, size, mtime_ns, status) VALUES (7, 1, '/lib/7.jpg', 1, 1, 'analysed')")
            try db.execute(sql: "INSERT INTO photo_features (photo_id, thumbnail, turned_phash, square_phash) VALUES (7, ?, 42, 43)",
                           arguments: [Data(thumbnails[0])])
        }
        var pages: [(filled: Int, done: Bool)] = []
        while pages.last?.done != true {
            pages.append(try database.write { db in try Migrations.fillDerivedHashesPage(db, pageSize: 2) })
            try #require(pages.count <= 4)
        }
        #expect(pages.map(\.filled) == [2, 2, 1] && pages.map(\.done) == [false, false, true])
        let expected = thumbnails.indices.map { index in
            [TurnedFrame.pHash(thumbnail: thumbnails[index]).map { Int64(bitPattern: $0) },
             CentreSquare.pHash(thumbnail: thumbnails[index], width: sizes[index].0, height: sizes[index].1).map { Int64(bitPattern: $0) }]
        }
        #expect(try stored() == expected + [[nil, nil], [42, 43]])
        #expect(expected.map { $0[1] == nil } == [false, false, true, false, false], "the square frame has no centre square")
        #expect(Set(expected.compactMap { $0[0] }).count > 1 && Set(expected.compactMap { $0[1] }).count > 1)
        #expect(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM derived_hashes_pending") } == 0)
        let after = try database.write { try Migrations.fillDerivedHashesPage($0, pageSize: 2) }
        #expect(after.filled == 0 && after.done, "nothing waits any more")

        // A database with no stored row notes none.
        let empty = try DatabaseQueue()
        try Migrations.migrator.migrate(empty)
        #expect(try empty.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM derived_hashes_pending") } == 0)
    }

    @Test("a store opened on a database of v17 fills its stored rows' derived hashes when asked, page by page")
    func derivedHashesFilledByTheStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cull-derived-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/cull.sqlite"
        let thumbnail = (0..<1024).map { UInt8(truncatingIfNeeded: ($0 % 32) * 5 + $0 / 32) }
        do {
            let database = try DatabaseQueue(path: path)
            try Migrations.migrator.migrate(database, upTo: "v17: detail layouts of textured photos (pipeline 8)")
            try await database.write { db in
                try db.execute(sql: "INSERT INTO libraries (id, root, current_generation) VALUES (1, '/lib', 1)")
                for id in 1...3 {
                    try db.execute(sql: "INSERT INTO photos (id, library_id, path, size, mtime_ns, status, width, height) VALUES (?, 1, ?, 1, 1, 'analysed', 1500, 1000)",
                                   arguments: [id, "/lib/\(id).jpg"])
                    try db.execute(sql: "INSERT INTO photo_features (photo_id, thumbnail) VALUES (?, ?)", arguments: [id, Data(thumbnail)])
                }
            }
        }
        let store = try await CullStore.open(path: path, on: BlockingQueue(label: "test", limit: 1))
        #expect(try await store.derivedHashesWaiting())
        #expect(try await store.fillDerivedHashes(pageSize: 2) == 3)
        #expect(try await store.derivedHashesWaiting() == false)
        #expect(try await store.fillDerivedHashes(pageSize: 2) == 0, "once")
        let turned = try #require(TurnedFrame.pHash(thumbnail: thumbnail))
        let square = try #require(CentreSquare.pHash(thumbnail: thumbnail, width: 1500, height: 1000))
        let stored = try await store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT turned_phash, square_phash FROM photo_features ORDER BY photo_id").map { [$0[0] as Int64?, $0[1] as Int64?] }
        }
        #expect(stored == Array(repeating: [Int64(bitPattern: turned), Int64(bitPattern: square)], count: 3))
    }

    /// The photos' pipeline versions, by id, after a database migrated up to `migration` and
    /// holding one library and `photos` (an INSERT) is migrated to the end.
    static func pipelineVersions(migratedFrom migration: String, photos: String) throws -> [Int64?] {
        let database = try DatabaseQueue()
        try Migrations.migrator.migrate(database, upTo: migration)
        try database.write { db in
            try db.execute(sql: "INSERT INTO libraries (id, root, current_generation) VALUES (1, '/lib', 1)")
            try db.execute(sql: photos)
        }
        try Migrations.migrator.migrate(database)
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, pipeline_version FROM photos ORDER BY id").map { $0["pipeline_version"] as Int64? }
        }
    }

    @Test("v14 moves every walk mark to photo_seen, and a scan's photos are read by the status index without a sort")
    func marksMoveToTheirOwnTable() throws {
        let database = try DatabaseQueue()
        try Migrations.migrator.migrate(database, upTo: "v13: a scan counts the files its walk sent to analysis, and the unchanged ones among them")
        try database.write { db in
            try db.execute(sql: "INSERT INTO libraries (id, root, current_generation) VALUES (1, '/lib', 3)")
            try db.execute(sql: """
                INSERT INTO photos (id, library_id, path, size, mtime_ns, seen_generation, status, pipeline_version, device, inode, links) VALUES
                    (1, 1, '/lib/a.jpg', 10, 20, 3, 'analysed', 7, 5, 100, 1),
                    (2, 1, '/lib/b.jpg', 11, 21, 2, 'analysed', 7, 5, 101, 1),
                    (3, 1, '/lib/c.jpg', 12, 22, 3, 'pending', NULL, 5, 102, 2)
                """)
        }
        try Migrations.migrator.migrate(database)
        try database.read { db in
            #expect(try !db.columns(in: "photos").map(\.name).contains("seen_generation"))
            let marks = try Row.fetchAll(db, sql: "SELECT photo_id, seen_generation FROM photo_seen ORDER BY photo_id")
            #expect(marks.map { [$0[0] as Int64, $0[1] as Int64] } == [[1, 3], [2, 2], [3, 3]])
            let kept = try Row.fetchAll(db, sql: "SELECT path, status, device, inode, links FROM photos ORDER BY id")
            #expect(kept.map { $0["path"] as String } == ["/lib/a.jpg", "/lib/b.jpg", "/lib/c.jpg"])
            #expect(kept[2]["status"] as String == "pending" && kept[2]["links"] as Int64 == 2)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            // The query that digests a scan's input (`groupingDigest`): the status index, each
            // mark found by its photo's id, the rows in id order as they come.
            let plan = try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT p.id FROM photos p JOIN photo_seen s ON s.photo_id = p.id
                WHERE p.library_id = 1 AND s.seen_generation = 2 AND p.status = 'analysed' ORDER BY p.id
                """).map { $0["detail"] as String }.joined(separator: "; ")
            #expect(plan.contains("photos_by_status") && !plan.contains("TEMP B-TREE"), "\(plan)")
            #expect(try db.indexes(on: "photo_seen").isEmpty, "a mark moves no index entry")
        }
    }

    @Test("a scan's failures are found by the status index, listed in path order up to the limit")
    func failuresByStatus() throws {
        let database = try DatabaseQueue()
        try Migrations.migrator.migrate(database)
        try database.write { db in
            try db.execute(sql: "INSERT INTO libraries (id, root, current_generation) VALUES (1, '/lib', 4)")
            try db.execute(sql: """
                INSERT INTO photos (id, library_id, path, size, mtime_ns, status, error_kind, error_message) VALUES
                    (1, 1, '/lib/d.jpg', 1, 1, 'failed', 'corrupt', 'd'), (2, 1, '/lib/a.jpg', 1, 1, 'analysed', NULL, NULL),
                    (3, 1, '/lib/c.jpg', 1, 1, 'failed', 'corrupt', 'c'), (4, 1, '/lib/b.jpg', 1, 1, 'failed', 'unreadable', 'b'),
                    (5, 1, '/lib/0.jpg', 1, 1, 'failed', 'corrupt', 'an older scan')
                """)
            try db.execute(sql: "INSERT INTO photo_seen (photo_id, seen_generation) VALUES (1, 4), (2, 4), (3, 4), (4, 4), (5, 3)")
        }
        try database.read { db in
            let arguments: StatementArguments = [1, 4, PhotoStatus.failed, 2]
            let listed = try Row.fetchAll(db, sql: CullStore.failuresQuery, arguments: arguments).map { $0["path"] as String }
            #expect(listed == ["/lib/b.jpg", "/lib/c.jpg"])
            // Not the path index: it would read every photo of the library in path order to find
            // the few that failed (0.78 s from a cold cache at 220,000 photos, against 0.013 s).
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + CullStore.failuresQuery, arguments: arguments)
                .map { $0["detail"] as String }.joined(separator: "; ")
            #expect(plan.contains("photos_by_status") && !plan.contains("autoindex"), "\(plan)")
        }
    }

    @Test("a database a newer cull migrated is refused with what to do, and left untouched")
    func newerDatabase() async throws {
        let folder = NSTemporaryDirectory() + "cull-newer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/cull.sqlite"
        do {
            let database = try DatabasePool(path: path)  // WAL, as cull makes its databases
            try Migrations.migrator.migrate(database)
            try await database.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: something from the future')")
                try db.execute(sql: "INSERT INTO libraries (id, root, current_generation) VALUES (1, '/lib', 3)")
            }
        }
        // What the database holds, read with a plain connection (the file's bytes may change
        // with a WAL checkpoint that writes nothing new).
        func contents() throws -> [String] {
            try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                    + String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
                    + String.fetchAll(db, sql: "SELECT root || ':' || current_generation FROM libraries")
                // (Not PRAGMA schema_version: opening a DatabasePool creates and drops a table of
                // GRDB's own to set WAL up, which bumps it without changing the schema.)
            }
        }
        let before = try contents()
        await #expect {
            _ = try await CullStore.open(path: path, on: BlockingQueue(label: "test.newer", limit: 1))
        } throws: { error in
            "\(error)".contains("made by a newer cull") && "\(error)".contains("v99: something from the future") && "\(error)".contains("upgrade cull")
        }
        let after = try contents()
        #expect(after == before, "nothing written: \(Set(after).symmetricDifference(before))")
    }
}
