import FoldCore

/// History reads on a connection of their own (`BoardStore.historyReader`).
///
/// Used by one thread (the daemon's reader), hence `@unchecked Sendable`.
final class SQLiteHistoryReader: HistoryReader, @unchecked Sendable {
    private let db: SQLiteDatabase
    /// nil once closed.
    private var statements: SQLiteHistoryStatements?
    private var selectBoard: SQLiteStatement?

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
        selectBoard = try db.prepare("SELECT epoch, rev, state FROM boards WHERE name = ?1")
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

    /// The row and the log in one read transaction: a commit between them
    /// cannot leave the row newer than the changes read after it.
    func readBoard(_ name: String, history: Int) throws(StoreError) -> BoardRead? {
        guard let statements, let s = selectBoard else { throw StoreError("the history reader is closed") }
        try db.execute("BEGIN")
        do throws(StoreError) {
            s.reset()
            defer { s.reset() }
            try s.bind(1, name)
            guard try s.step() else {
                try db.execute("COMMIT")
                return nil
            }
            let row = StoredBoard(name: name, epoch: s.text(0), rev: s.int(1), state: s.blob(2))
            s.reset()
            // The row lags its head by fewer revs than are kept: one read covers both.
            let changes = try statements.read(board: name, HistoryQuery(.since(max(0, row.rev - history)), limit: .max))
            try db.execute("COMMIT")
            let board = try StateSnapshots.head(of: row, after: changes.filter { $0.rev > row.rev })
            return BoardRead(board: board, changes: Array(changes.suffix(history)))
        } catch {
            _ = try? db.execute("ROLLBACK")
            throw error
        }
    }

    func close() {
        guard statements != nil else { return }
        statements = nil
        selectBoard = nil
        db.close()
    }
}
