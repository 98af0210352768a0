import CSQLite
import FoldCore

/// Owns one prepared statement. Reset before each use, so it can be reused;
/// every bind and step goes through the database's `check`.
final class SQLiteStatement {
    let stmt: OpaquePointer
    unowned let database: SQLiteDatabase

    init(_ stmt: OpaquePointer, database: SQLiteDatabase) {
        self.stmt = stmt
        self.database = database
    }

    // finalize repeats the last step's error, which `step` already reported.
    deinit { sqlite3_finalize(stmt) }

    /// Ready for new bindings. `sqlite3_reset` repeats the last step's error
    /// (already thrown by `step`/`run`), and `sqlite3_clear_bindings` always
    /// succeeds, so neither result is checked.
    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    func bind(_ i: Int32, _ text: String) throws(StoreError) {
        try database.check(sqlite3_bind_text(stmt, i, text, -1, fs_sqlite_transient()), "bind text \(i)")
    }

    /// A key's bytes as text, copied by SQLite (the key is a value, gone after the call).
    func bind(_ i: Int32, _ key: PackedKey) throws(StoreError) {
        let rc = key.withBytes { sqlite3_bind_text(stmt, i, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count), fs_sqlite_transient()) }
        try database.check(rc, "bind text \(i)")
    }

    func bind(_ i: Int32, _ value: Int) throws(StoreError) {
        try database.check(sqlite3_bind_int64(stmt, i, Int64(value)), "bind integer \(i)")
    }

    func bind(_ i: Int32, blob: [UInt8]) throws(StoreError) {
        guard let count = Int32(exactly: blob.count) else { throw StoreError("bind blob \(i): \(blob.count) bytes is too big") }
        let rc = blob.withUnsafeBytes { sqlite3_bind_blob(stmt, i, $0.baseAddress, count, fs_sqlite_transient()) }
        try database.check(rc, "bind blob \(i)")
    }

    /// Binds `blob` as parameter `i` without SQLite copying it, and runs the
    /// statement while the bytes are certain to stay put.
    func run(binding blob: [UInt8], at i: Int32) throws(StoreError) {
        guard let count = Int32(exactly: blob.count) else { throw StoreError("bind blob \(i): \(blob.count) bytes is too big") }
        let rc = blob.withUnsafeBytes { bytes -> Int32 in
            let bound = sqlite3_bind_blob(stmt, i, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), count, nil)
            guard bound == SQLITE_OK else { return bound }
            let stepped = sqlite3_step(stmt)
            sqlite3_reset(stmt)
            // Unbound before the bytes may move.
            sqlite3_clear_bindings(stmt)
            return stepped
        }
        try database.check(rc, "step")
    }

    /// Runs a statement that returns no rows.
    func run() throws(StoreError) {
        defer { sqlite3_reset(stmt) }
        try database.check(sqlite3_step(stmt), "step")
    }

    /// Steps once; true while a row is available.
    func step() throws(StoreError) -> Bool {
        try database.check(sqlite3_step(stmt), "step") == .row
    }

    /// SQLite's count of virtual-machine steps this statement has run: what
    /// it cost, for tests that bound how much a statement reads.
    var vmSteps: Int { Int(sqlite3_stmt_status(stmt, Int32(SQLITE_STMTSTATUS_VM_STEP), 0)) }

    func text(_ col: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, col) else { return "" }
        return String(cString: p)
    }

    func isNull(_ col: Int32) -> Bool { sqlite3_column_type(stmt, col) == SQLITE_NULL }

    func int(_ col: Int32) -> Int { Int(sqlite3_column_int64(stmt, col)) }

    func blob(_ col: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(stmt, col))
        guard n > 0, let p = sqlite3_column_blob(stmt, col) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
