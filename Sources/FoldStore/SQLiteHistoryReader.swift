import FoldCore

/// History reads on a connection of their own (`BoardStore.historyReader`).
///
/// Used by one thread (the daemon's reader), hence `@unchecked Sendable`.
final class SQLiteHistoryReader: HistoryReader, @unchecked Sendable {
    private let db: SQLiteDatabase
    /// nil once closed.
    private var statements: SQLiteHistoryStatements?

    init(path: String, busyTimeoutMs: Int) throws(StoreError) {
        // The store opened (and created) the file first: a missing one is an error here.
        db = try SQLiteDatabase(path: path, create: false)
        try db.setBusyTimeout(milliseconds: busyTimeoutMs)
        statements = try SQLiteHistoryStatements(db)
    }

    deinit { close() }

    func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        guard let statements else { throw StoreError("the history reader is closed") }
        return try statements.read(board: board, query)
    }

    func close() {
        guard statements != nil else { return }
        statements = nil
        db.close()
    }
}
