import FoldCore

/// The SQLite engine: WAL mode, `synchronous=FULL`, one transaction per
/// batch, so a group of changes costs one fsync.
///
/// Not thread-safe by itself: used at start-up, then only by the committer
/// thread (the `BoardStore` contract), hence `@unchecked Sendable`.
public final class SQLiteStore: BoardStore, @unchecked Sendable {
    private let db: SQLiteDatabase
    private let upsertBoard: SQLiteStatement
    private let deleteBoard: SQLiteStatement
    private let deleteChanges: SQLiteStatement
    private let insertChange: SQLiteStatement
    private let pruneChanges: SQLiteStatement
    private let selectBoards: SQLiteStatement
    private let selectChanges: SQLiteStatement
    private let checkpointer: SQLiteCheckpointer

    /// Opens (creating if needed) the database at `path`. `busyTimeoutMs`
    /// bounds how long a commit waits for a lock held by someone else before
    /// it counts as failed.
    public init(path: String, busyTimeoutMs: Int = 2_000) throws(StoreError) {
        db = try SQLiteDatabase(path: path)
        try db.setBusyTimeout(milliseconds: busyTimeoutMs)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute("PRAGMA synchronous=FULL")
        checkpointer = SQLiteCheckpointer(path: path)
        try db.execute("""
            CREATE TABLE IF NOT EXISTS boards(
                name TEXT PRIMARY KEY, epoch TEXT NOT NULL, rev INTEGER NOT NULL, state BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS changes(
                board TEXT NOT NULL, rev INTEGER NOT NULL, ops BLOB NOT NULL,
                PRIMARY KEY(board, rev)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '1');
            """)
        upsertBoard = try db.prepare("""
            INSERT INTO boards(name, epoch, rev, state) VALUES(?1, ?2, ?3, ?4)
            ON CONFLICT(name) DO UPDATE SET epoch = ?2, rev = ?3, state = ?4
            """)
        deleteBoard = try db.prepare("DELETE FROM boards WHERE name = ?1")
        deleteChanges = try db.prepare("DELETE FROM changes WHERE board = ?1")
        insertChange = try db.prepare("INSERT OR REPLACE INTO changes(board, rev, ops) VALUES(?1, ?2, ?3)")
        pruneChanges = try db.prepare("DELETE FROM changes WHERE board = ?1 AND rev <= ?2")
        selectBoards = try db.prepare("SELECT name, epoch, rev, state FROM boards ORDER BY name")
        selectChanges = try db.prepare("SELECT rev, ops FROM changes WHERE board = ?1 AND rev > ?2 ORDER BY rev")
        checkpointer.attach(to: db.handle)
    }

    deinit { checkpointer.stop() }

    public func loadBoards() throws(StoreError) -> [StoredBoard] {
        selectBoards.reset()
        defer { selectBoards.reset() }
        var out: [StoredBoard] = []
        while try selectBoards.step() {
            out.append(StoredBoard(
                name: selectBoards.text(0), epoch: selectBoards.text(1),
                rev: selectBoards.int(2), state: selectBoards.blob(3)))
        }
        return out
    }

    public func loadChanges(board: String, after rev: Int) throws(StoreError) -> [StoredChange] {
        selectChanges.reset()
        defer { selectChanges.reset() }
        try selectChanges.bind(1, board)
        try selectChanges.bind(2, rev)
        var out: [StoredChange] = []
        while try selectChanges.step() {
            out.append(StoredChange(board: board, rev: selectChanges.int(0), ops: selectChanges.blob(1)))
        }
        return out
    }

    public func commit(_ batch: CommitBatch) throws(StoreError) {
        try db.execute("BEGIN IMMEDIATE")
        do {
            for name in batch.deletions {
                deleteBoard.reset(); try deleteBoard.bind(1, name); try deleteBoard.run()
                deleteChanges.reset(); try deleteChanges.bind(1, name); try deleteChanges.run()
            }
            for b in batch.boards {
                upsertBoard.reset()
                try upsertBoard.bind(1, b.name); try upsertBoard.bind(2, b.epoch)
                try upsertBoard.bind(3, b.rev); try upsertBoard.bind(4, blob: b.state)
                try upsertBoard.run()
            }
            for c in batch.changes {
                insertChange.reset()
                try insertChange.bind(1, c.board); try insertChange.bind(2, c.rev); try insertChange.bind(3, blob: c.ops)
                try insertChange.run()
            }
            for b in batch.boards where b.rev > batch.historyLimit {
                pruneChanges.reset()
                try pruneChanges.bind(1, b.name); try pruneChanges.bind(2, b.rev - batch.historyLimit)
                try pruneChanges.run()
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    public func probe() throws(StoreError) {
        do {
            try db.execute("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE key = 'schema'; COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }
}
