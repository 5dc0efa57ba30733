import Foundation
import GRDB
import Shared

/// cull's SQLite state (WAL): libraries, scans, photos, jobs, groups.
///
/// The SQL lives in one extension per concern: scans (`CullStore+Scans`), the walk
/// (`CullStore+Walk`), jobs (`CullStore+Jobs`), the result fence (`ResultFence`, rule 4) and
/// groups (`CullStore+Groups`).
///
/// Every method is async and goes through GRDB's async API. GRDB runs those accesses on an
/// actor whose executor is the connection's own serial DispatchQueue
/// (GRDB/Core/DispatchQueueActor.swift). A serial queue targets libdispatch's overcommitting
/// root queue, which gets a thread of its own when its threads are busy; so `sqlite3_step`
/// never occupies one of the cooperative pool's width-limited threads (rule 1), and a slow
/// write waits on that queue, not on the pool.
///
/// `writer` is any GRDB writer: a `DatabasePool` on a file in production, an in-memory
/// `DatabaseQueue` in tests.
final class CullStore: Sendable {
    let path: String
    let writer: any DatabaseWriter

    private init(path: String, writer: any DatabaseWriter) {
        self.path = path
        self.writer = writer
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// Opening and migrating block, so they run on `queue`, within `timeout` (a database on a
    /// hung mount must not hang the daemon's start).
    static func open(path: String, on queue: BlockingQueue, timeout: Duration = .seconds(60)) async throws -> CullStore {
        try await queue.run(timeout: timeout, operation: "opening \(path)") {
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
            return try migrated(path: path) { try DatabasePool(path: path, configuration: configuration) }
        }
    }

    /// A store in memory, for tests of the store and of the coordinator in process.
    static func inMemory(on queue: BlockingQueue) async throws -> CullStore {
        try await queue.run(timeout: .seconds(30), operation: "opening an in-memory database") {
            try migrated(path: ":memory:") { try DatabaseQueue() }
        }
    }

    private static func migrated(path: String, _ makeWriter: () throws -> any DatabaseWriter) throws -> CullStore {
        do {
            let writer = try makeWriter()
            // A database a newer cull migrated has tables and rows this one does not know: it is
            // neither migrated nor written to.
            let unknown = try writer.read { db in try Migrations.unknownMigrations(db) }
            guard unknown.isEmpty else {
                throw StoreError(description: """
                    the database \(path) was made by a newer cull (schema steps this version does not know: \
                    \(unknown.joined(separator: "; "))); it is left untouched: upgrade cull, or pass another --db
                    """)
            }
            try Migrations.migrator.migrate(writer)
            return CullStore(path: path, writer: writer)
        } catch let error as DatabaseError {
            throw StoreError(description: explain(error, path: path))
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
}

/// Errors that can say what happened to the database in words.
protocol DatabaseErrorDescribable {
    func describe(path: String) -> String
}

extension DatabaseError: DatabaseErrorDescribable {
    func describe(path: String) -> String { CullStore.explain(self, path: path) }
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
