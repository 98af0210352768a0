import CSQLite
import FoldCore

/// Owns one sqlite3 handle and closes it. Every status code goes through
/// `check`, which turns it into a `StoreError` carrying SQLite's message.
final class SQLiteDatabase {
    let handle: OpaquePointer
    private var closed = false

    /// `create` false: a missing file is an error, not a new empty store.
    init(path: String, create: Bool = true) throws(StoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = SQLiteResultCode(rawValue: sqlite3_open_v2(path, &db, flags, nil))
        guard rc == .ok, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw StoreError("cannot open \(path): \(message)")
        }
        handle = db
    }

    /// The main database's file as SQLite resolved it (symlinks followed):
    /// where its WAL is kept beside it.
    var filename: String { String(cString: sqlite3_db_filename(handle, "main")) }

    /// The WAL's file, beside `filename`.
    var walFilename: String { String(cString: sqlite3_filename_wal(sqlite3_db_filename(handle, "main"))) }

    // close_v2, whose result is always OK: the store's statements may be
    // freed after it (stored properties go in no set order), and SQLite then
    // closes the handle when the last one is finalized.
    deinit { close() }

    /// Closes now (every statement must be finalized for the handle to go at once).
    func close() {
        guard !closed else { return }
        closed = true
        sqlite3_close_v2(handle)
    }

    /// The one checker: OK, ROW and DONE pass; anything else throws with
    /// SQLite's message for this handle.
    @discardableResult
    func check(_ rc: Int32, _ what: @autoclosure () -> String) throws(StoreError) -> SQLiteResultCode {
        let code = SQLiteResultCode(rawValue: rc)
        guard code.isSuccess else {
            throw StoreError("\(what()): \(String(cString: sqlite3_errmsg(handle))) (\(code))")
        }
        return code
    }

    /// How long a statement waits for another connection's lock before it
    /// fails with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int) throws(StoreError) {
        try check(sqlite3_busy_timeout(handle, Int32(clamping: milliseconds)), "busy_timeout \(milliseconds)")
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
