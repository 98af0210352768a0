import CSQLite
import FoldCore

/// The SQLite engine: WAL mode, `synchronous=FULL`, one transaction per
/// batch, so a group of changes costs one fsync.
///
/// Not thread-safe by itself: used at start-up, then only by the committer
/// thread (the `BoardStore` contract), hence `@unchecked Sendable`.
public final class SQLiteStore: BoardStore, @unchecked Sendable {
    private let db: SQLiteDatabase
    private let path: String
    private let busyTimeoutMs: Int
    /// nil once closed.
    private var sql: SQLiteStatements?
    private let checkpointer: SQLiteCheckpointer
    /// Which boards' state the file holds at which rev (see `StateSnapshots`).
    private var snapshots = StateSnapshots()
    /// The schema version the file had when opened (0: new), for the log.
    public let openedVersion: Int
    /// The version this binary writes.
    public static var schemaVersion: Int { SQLiteSchema.version }
    public var upgradedSchema: (from: Int, to: Int)? {
        openedVersion > 0 && openedVersion < Self.schemaVersion ? (openedVersion, Self.schemaVersion) : nil
    }

    /// Opens (creating if needed) the database at `path`, upgrading a store
    /// of an earlier release. `busyTimeoutMs` bounds how long a commit waits
    /// for a lock held by someone else before it counts as failed.
    /// `reserveWAL`: a store that will serve commits writes its WAL's blocks
    /// once now (see `reserveWAL`); a one-off open (a copy, a backup) skips it.
    public init(path: String, busyTimeoutMs: Int = 2_000, reserveWAL: Bool = false) throws(StoreError) {
        db = try SQLiteDatabase(path: path)
        self.path = path
        self.busyTimeoutMs = busyTimeoutMs
        try db.setBusyTimeout(milliseconds: busyTimeoutMs)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute("PRAGMA synchronous=FULL")
        checkpointer = SQLiteCheckpointer(path: path)
        openedVersion = try SQLiteSchema.prepare(db)
        let statements = try SQLiteStatements(db)
        sql = statements
        if reserveWAL { walBytes = try Self.reserveWAL(db, statements) }
        checkpointer.attach(to: db.handle)
    }

    /// The WAL's size after `reserveWAL` (0 when not reserved).
    public private(set) var walBytes: Int64 = 0

    /// The WAL's size before a checkpoint: `SQLiteCheckpointer.pages` frames
    /// (a page and its 24-byte header each) plus the file header, rounded up
    /// to a MiB.
    static func walBytes(pageSize: Int64) -> Int64 {
        let mib: Int64 = 1 << 20
        return (Int64(SQLiteCheckpointer.pages) * (pageSize + 24) + 32 + mib - 1) / mib * mib
    }

    /// Writes the WAL's first `walBytes` once, as zeros, so that commits
    /// overwrite blocks the file already has. A commit that grows the file
    /// makes `fdatasync` write the inode and the new blocks' metadata too:
    /// on this machine's disk 0.92–1.05 ms a commit against 0.65–0.71 ms
    /// (median of 200 8 KiB writes each followed by `fdatasync`, one every
    /// 50 ms). SQLite reuses the WAL from its start after each complete
    /// checkpoint, so without this only the first ≈ 500 commits after every
    /// start grow it; a benchmark on a new database sees nothing else.
    /// Done inside `BEGIN IMMEDIATE`: no other writer can append meanwhile.
    /// A failure costs only speed, so it is not an error. Returns the size
    /// asked for (0: no WAL).
    private static func reserveWAL(_ db: SQLiteDatabase, _ sql: SQLiteStatements) throws(StoreError) -> Int64 {
        // Only a WAL: a file system without shared memory leaves SQLite in rollback mode.
        let mode = try db.prepare("PRAGMA journal_mode")
        let wal = try mode.step() && mode.text(0) == "wal"
        mode.reset()
        guard wal else { return 0 }
        let page = try db.prepare("PRAGMA page_size")
        let pageSize = try page.step() ? Int64(page.int(0)) : 4_096
        page.reset()
        let bytes = walBytes(pageSize: pageSize)
        try sql.begin.run()
        _ = fs_sqlite_wal_extend(db.handle, bytes)
        try sql.commit.run()
        return bytes
    }

    deinit { close() }

    private func statements() throws(StoreError) -> SQLiteStatements {
        guard let sql else { throw StoreError("the store is closed") }
        return sql
    }

    public func loadBoards() throws(StoreError) -> [StoredBoard] {
        let s = try statements().selectBoards
        s.reset()
        defer { s.reset() }
        var rows: [StoredBoard] = []
        while try s.step() {
            rows.append(StoredBoard(name: s.text(0), epoch: s.text(1), rev: s.int(2), state: s.blob(3)))
        }
        s.reset()
        // A row's state may lag its board by a few revs: the changes logged after it bring it to the head.
        return try rows.map { (row: StoredBoard) throws(StoreError) -> StoredBoard in
            let after = try loadChanges(board: row.name, after: row.rev)
            var board = row
            if !after.isEmpty {
                guard after.map(\.rev) == Array(row.rev + 1 ... row.rev + after.count) else {
                    throw StoreError("board '\(row.name)': the change log after its stored state (rev \(row.rev)) has a gap")
                }
                board.state = try StateSnapshots.replay(state: row.state, changes: after, board: row.name)
                board.rev = after.last!.rev
            }
            snapshots.loaded(row.name, .init(epoch: row.epoch, stateRev: row.rev, head: board.rev))
            return board
        }
    }

    public func loadChanges(board: String, after rev: Int) throws(StoreError) -> [StoredChange] {
        let s = try statements().selectChanges
        s.reset()
        defer { s.reset() }
        try s.bind(1, board)
        try s.bind(2, rev)
        var out: [StoredChange] = []
        while try s.step() {
            out.append(StoredChange(board: board, rev: s.int(0), ops: s.blob(1)))
        }
        return out
    }

    public func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        try statements().history.read(board: board, query)
    }

    /// Another connection to the same file, for history reads on a thread of
    /// their own: in WAL mode a reader never blocks the writer, and each read
    /// sees every transaction committed before it began.
    public func historyReader() throws(StoreError) -> any HistoryReader & Sendable {
        try SQLiteHistoryReader(path: path, busyTimeoutMs: busyTimeoutMs)
    }

    public func commit(_ batch: CommitBatch) throws(StoreError) {
        let sql = try statements()
        let plan = snapshots.plan(batch)
        try sql.begin.run()
        do {
            for name in batch.deletions {
                sql.deleteBoard.reset(); try sql.deleteBoard.bind(1, name); try sql.deleteBoard.run()
                sql.deleteChanges.reset(); try sql.deleteChanges.bind(1, name); try sql.deleteChanges.run()
            }
            for b in batch.boards where plan.write.contains(b.name) {
                let s = sql.upsertBoard
                s.reset()
                try s.bind(1, b.name); try s.bind(2, b.epoch)
                try s.bind(3, b.rev); try s.bind(4, blob: b.state)
                try s.run()
            }
            for c in batch.changes {
                let s = sql.insertChange
                s.reset()
                try s.bind(1, c.board); try s.bind(2, c.rev); try s.bind(3, blob: c.ops)
                if let r = c.record {
                    // A record that already has its time (migrate-store) keeps it.
                    try s.bind(4, r.at > 0 ? r.at : batch.now); try s.bind(5, r.actor); try s.bind(6, r.session)
                    try s.bind(7, blob: r.action); try s.bind(8, blob: r.inverse); try s.bind(9, r.summary)
                } else {
                    try s.bind(4, batch.now); try s.bind(5, ""); try s.bind(6, "")
                    try s.bind(9, "")
                }
                try s.run()
            }
            for b in batch.boards where plan.prune.contains(b.name) && batch.prunable(below: b.rev) > 0 {
                let s = sql.pruneChanges
                s.reset()
                try s.bind(1, b.name); try s.bind(2, batch.prunable(below: b.rev)); try s.bind(3, batch.cutoff)
                try s.run()
            }
            try sql.commit.run()
            snapshots.committed(plan.after)
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

    /// Stops the checkpointer, checkpoints the whole WAL into the database
    /// file and closes: as the last connection, SQLite then removes `-wal`
    /// and `-shm`, and the `.db` alone holds everything.
    public func close() {
        guard sql != nil else { return }
        checkpointer.stop()
        sql = nil
        _ = try? db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
    }
}

/// The store's prepared statements, finalized together when it closes
/// (a connection with live statements cannot close).
final class SQLiteStatements {
    let upsertBoard, deleteBoard, deleteChanges, insertChange, pruneChanges: SQLiteStatement
    let selectBoards, selectChanges: SQLiteStatement
    let history: SQLiteHistoryStatements
    /// Prepared once: `sqlite3_exec` would parse them for every commit
    /// (≈ 30 µs of a commit that follows a quiet spell, measured).
    let begin, commit: SQLiteStatement

    /// Kept: the last history-per-board changes (`rev > ?2`), and the ones
    /// from the first younger than history-days (`at >= ?3`) on. It runs in
    /// every commit, so it reads only what it deletes: the oldest changes in
    /// rev order up to the first young one (the `at` of later revs is rarely
    /// older; such a change goes with the young one before it). One bound
    /// on `rev`, so SQLite ranges over the primary key up to it.
    static let pruneSQL = """
        DELETE FROM changes WHERE board = ?1 AND rev < coalesce(
            (SELECT rev FROM changes WHERE board = ?1 AND rev <= ?2 AND at >= ?3 ORDER BY rev LIMIT 1), ?2 + 1)
        """

    init(_ db: SQLiteDatabase) throws(StoreError) {
        begin = try db.prepare("BEGIN IMMEDIATE")
        commit = try db.prepare("COMMIT")
        upsertBoard = try db.prepare("""
            INSERT INTO boards(name, epoch, rev, state) VALUES(?1, ?2, ?3, ?4)
            ON CONFLICT(name) DO UPDATE SET epoch = ?2, rev = ?3, state = ?4
            """)
        deleteBoard = try db.prepare("DELETE FROM boards WHERE name = ?1")
        deleteChanges = try db.prepare("DELETE FROM changes WHERE board = ?1")
        insertChange = try db.prepare("""
            INSERT OR REPLACE INTO changes(board, rev, ops, at, actor, session, action, inverse, summary)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        pruneChanges = try db.prepare(Self.pruneSQL)
        selectBoards = try db.prepare("SELECT name, epoch, rev, state FROM boards ORDER BY name")
        selectChanges = try db.prepare("SELECT rev, ops FROM changes WHERE board = ?1 AND rev > ?2 ORDER BY rev")
        history = try SQLiteHistoryStatements(db)
    }
}
