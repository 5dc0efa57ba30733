import GRDB
import GRDBSQLite

/// A prepared SQLite statement driven through SQLite's C API, for the loops where GRDB's
/// per-call conveniences (an argument array, a row cursor, retained values) cost more than the
/// query itself: the walk's lookup of every file it finds, 220,000 times in a rescan of an
/// unchanged library (bench/RESULTS.md, "Rescans"), grouping's read of every photo row of a
/// scan, 26 columns of a million rows (`CullStore.groupingInput`), the reads by id that follow
/// (layouts, window hashes: `CullStore+GroupingFeatures.swift`), and the write of its groups
/// (`CullStore.finalize`: a million photos' scan writes about 111,000 groups and 250,000
/// members). Everything else uses GRDB.
///
/// Used inside one GRDB transaction (a write, or a read) and finalized when released, before
/// it ends.
final class RawStatement {
    private let statement: OpaquePointer
    private let connection: OpaquePointer?

    init(_ db: Database, sql: String) throws {
        connection = db.sqliteConnection
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v2(connection, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        statement = prepared
    }

    deinit { sqlite3_finalize(statement) }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(statement, index, value)
    }

    /// Binds a copy of `text` (SQLite's own, kept until the next binding of `index`).
    func bind(_ index: Int32, text: String) {
        sqlite3_bind_text(statement, index, text, -1, Self.transient)
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds `text` to `index` for the duration of `body` (SQLite reads it in place), runs
    /// `body`, and resets the statement (other bindings stay).
    func with<T>(_ text: String, at index: Int32, _ body: (RawStatement) throws -> T) rethrows -> T {
        var text = text
        return try text.withUTF8 { utf8 in
            sqlite3_bind_text(statement, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
            defer {
                sqlite3_reset(statement)
                sqlite3_bind_null(statement, index)  // the text's buffer is gone after this call
            }
            return try body(self)
        }
    }

    /// Makes the statement ready to run again (its bindings stay).
    func reset() { sqlite3_reset(statement) }

    /// Steps once: true when a row is there to read, false when the statement is done.
    func step() throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws {
        defer { sqlite3_reset(statement) }
        _ = try step()
    }

    /// Steps a statement that returns no rows (the caller resets it, as `with` does) and
    /// returns how many rows it changed.
    func runCountingChanges() throws -> Int32 {
        _ = try step()
        return sqlite3_changes(connection)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: bytes)
    }

    // Of the current row (valid until the next `step`); nil where the column is NULL.
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, column) }

    /// The column's bytes, copied (empty when NULL). SQLite's order: the pointer, then the size.
    func bytes(_ column: Int32) -> [UInt8] {
        guard let blob = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(statement, column))))
    }

    /// The column's bytes where SQLite holds them: valid until the next `step` (empty when NULL).
    func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let blob = sqlite3_column_blob(statement, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(statement, column)))
    }
}
