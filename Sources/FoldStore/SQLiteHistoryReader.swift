import FoldCore

/// History reads on a connection of their own (`BoardStore.historyReader`).
///
/// Used by one thread (the daemon's reader), hence `@unchecked Sendable`.
final class SQLiteHistoryReader: HistoryReader, @unchecked Sendable {
    private let db: SQLiteDatabase
    /// nil once closed.
    private var statements: SQLiteHistoryStatements?

    init(path: String, busyTimeoutMs: Int, staged: WaitingChanges) throws(StoreError) {
        // The store opened (and created) the file first: a missing one is an error here.
        db = try SQLiteDatabase(path: path, create: false)
        try db.setBusyTimeout(milliseconds: busyTimeoutMs)
        // Pages of history come from a memory map and a larger cache rather
        // than a read(2) each; the writers' figure beside 64 readers was
        // measured with both (PERFORMANCE.md). Reads only: the map costs
        // address space, not memory.
        try db.execute("PRAGMA mmap_size = \(Self.mapBytes)")
        try db.execute("PRAGMA cache_size = -\(Self.cacheKiB)")
        statements = try SQLiteHistoryStatements(db, staged: staged)
    }

    /// The file mapped for reads (SQLite maps at most this much).
    static let mapBytes = 1 << 30
    /// The page cache of the reader's connection.
    static let cacheKiB = 32 << 10

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
