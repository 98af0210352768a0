import CSQLite
import FoldCore

/// Owns one sqlite3 handle and closes it. Every status code goes through
/// `check`, which turns it into a `StoreError` carrying SQLite's message.
final class SQLiteDatabase {
    let handle: OpaquePointer

    init(path: String) throws(StoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw StoreError("cannot open \(path): \(message)")
        }
        handle = db
    }

    deinit { sqlite3_close(handle) }

    func check(_ rc: Int32, _ what: @autoclosure () -> String) throws(StoreError) {
        guard rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw StoreError("\(what()): \(String(cString: sqlite3_errmsg(handle))) (code \(rc))")
        }
    }

    func execute(_ sql: String) throws(StoreError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil), "prepare \(sql)")
        return SQLiteStatement(stmt!, database: self)
    }
}

/// Owns one prepared statement. Reset before each use, so it can be reused.
final class SQLiteStatement {
    let stmt: OpaquePointer
    unowned let database: SQLiteDatabase

    init(_ stmt: OpaquePointer, database: SQLiteDatabase) {
        self.stmt = stmt
        self.database = database
    }

    deinit { sqlite3_finalize(stmt) }

    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    func bind(_ i: Int32, _ text: String) {
        sqlite3_bind_text(stmt, i, text, -1, fs_sqlite_transient())
    }

    func bind(_ i: Int32, _ value: Int) {
        sqlite3_bind_int64(stmt, i, Int64(value))
    }

    func bind(_ i: Int32, blob: [UInt8]) {
        _ = blob.withUnsafeBytes { sqlite3_bind_blob(stmt, i, $0.baseAddress, Int32($0.count), fs_sqlite_transient()) }
    }

    /// Runs a statement that returns no rows.
    func run() throws(StoreError) {
        defer { sqlite3_reset(stmt) }
        try database.check(sqlite3_step(stmt), "step")
    }

    /// Steps once; true while a row is available.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(stmt)
        try database.check(rc, "step")
        return rc == SQLITE_ROW
    }

    func text(_ col: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, col) else { return "" }
        return String(cString: p)
    }

    func int(_ col: Int32) -> Int { Int(sqlite3_column_int64(stmt, col)) }

    func blob(_ col: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(stmt, col))
        guard n > 0, let p = sqlite3_column_blob(stmt, col) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
