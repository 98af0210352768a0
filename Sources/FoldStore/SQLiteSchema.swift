import FoldCore

/// The tables and their version (`PRAGMA user_version`). A store written by
/// an earlier release is upgraded in place, in one transaction, at open; one
/// written by a newer release is refused rather than misread.
enum SQLiteSchema {
    /// The version this binary writes and understands.
    static let version = 8

    /// A fresh store, at `version`.
    static let create = """
        CREATE TABLE boards(
            name TEXT PRIMARY KEY, epoch TEXT NOT NULL, rev INTEGER NOT NULL, state BLOB NOT NULL);
        \(log)
        \(keyCommits)
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta(key, value) VALUES('schema', '\(version)');
        """

    /// The change log (`LogChunk`, `LogPlacement`): a board's changes in runs,
    /// keyed by the run's first rev (`youngest`: the latest `at` in it, so
    /// pruning need not read it), and the runs not yet moved there, a row per commit.
    static let log = """
        CREATE TABLE chunks(
            board TEXT NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, youngest INTEGER NOT NULL, changes BLOB NOT NULL,
            PRIMARY KEY(board, first)) WITHOUT ROWID;
        CREATE TABLE journal(seq INTEGER PRIMARY KEY, runs BLOB NOT NULL);
        """

    /// Accepted actions' keys (`StoredKey`), a row a commit (`KeyPack`:
    /// every board's keys of the commit), in the order written: a rowid
    /// table with no index, so a commit appends one row at the table's end
    /// (a row a board cost SQLite's per-row work as many times as boards in
    /// the commit). Rows are deleted by rowid once every key in them is
    /// forgotten, or rewritten when mostly dead (`KeyQueues`); a key is
    /// looked up only in memory, loaded at start. `count`: the keys the row
    /// was written with.
    static let keyCommits = """
        CREATE TABLE key_commits(count INTEGER NOT NULL, keys BLOB NOT NULL);
        """

    /// Version 7's: a row a board a commit, its keys without a group's head.
    static let keyPacks = """
        CREATE TABLE key_packs(board TEXT NOT NULL, at INTEGER NOT NULL, count INTEGER NOT NULL, keys BLOB NOT NULL);
        """

    /// Version 5 filed keys by (board, rev, key); now in the order written.
    static let keysByRowid = """
        CREATE TABLE keys_written(
            board TEXT NOT NULL, key TEXT NOT NULL, rev INTEGER NOT NULL, fingerprint INTEGER NOT NULL, at INTEGER NOT NULL);
        INSERT INTO keys_written(board, key, rev, fingerprint, at) SELECT board, key, rev, fingerprint, at FROM keys ORDER BY at, board, rev;
        DROP TABLE keys;
        ALTER TABLE keys_written RENAME TO keys;
        """

    /// `upgrades[v]` takes a store from version `v` to `v + 1`. Version 1 (the
    /// first release) kept no user_version, only `meta.schema = '1'`.
    static let upgrades: [Int: String] = [
        1: """
            ALTER TABLE changes ADD COLUMN at INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE changes ADD COLUMN actor TEXT NOT NULL DEFAULT '';
            ALTER TABLE changes ADD COLUMN session TEXT NOT NULL DEFAULT '';
            ALTER TABLE changes ADD COLUMN action BLOB;
            ALTER TABLE changes ADD COLUMN inverse BLOB;
            ALTER TABLE changes ADD COLUMN summary TEXT NOT NULL DEFAULT '';
            UPDATE meta SET value = '2' WHERE key = 'schema';
            """,
        // The tables stay; a change of fields may now store `FieldUndo`'s compact undo, which an older release cannot read.
        2: "UPDATE meta SET value = '3' WHERE key = 'schema';",
        // The log moves into runs (`runsFromRows`, after this).
        3: log + "UPDATE meta SET value = '4' WHERE key = 'schema';",
        4: """
            CREATE TABLE keys(
                board TEXT NOT NULL, rev INTEGER NOT NULL, key TEXT NOT NULL, fingerprint INTEGER NOT NULL, at INTEGER NOT NULL,
                PRIMARY KEY(board, rev, key)) WITHOUT ROWID;
            UPDATE meta SET value = '5' WHERE key = 'schema';
            """,
        5: keysByRowid + "UPDATE meta SET value = '6' WHERE key = 'schema';",
        // The keys move into packs (`packsFromRows`, after this).
        6: keyPacks + "UPDATE meta SET value = '7' WHERE key = 'schema';",
        // A row a board becomes a row of one group (`commitsFromPacks`, after this).
        7: keyCommits + "UPDATE meta SET value = '8' WHERE key = 'schema';",
    ]

    /// Upgrade step 7's second half: each row of `key_packs` into a row of
    /// `key_commits` holding one group, the pack's keys after the group's
    /// head (the keys' encoding is the same); then the table goes.
    static func commitsFromPacks(_ db: SQLiteDatabase) throws(StoreError) {
        let rows = try db.prepare("SELECT board, at, count, keys FROM key_packs ORDER BY rowid")
        let insert = try db.prepare("INSERT INTO key_commits(count, keys) VALUES(?1, ?2)")
        var out: [UInt8] = []
        while try rows.step() {
            let keys = rows.blob(3)
            guard let entries = KeyPack.decodeEntries(keys) else { throw StoreError("key pack of board '\(rows.text(0))' is unreadable") }
            out.removeAll(keepingCapacity: true)
            KeyPack.appendGroup(board: rows.text(0), at: rows.int(1), count: entries.count, to: &out)
            out.append(contentsOf: keys)
            insert.reset()
            try insert.bind(1, entries.count)
            try insert.run(binding: out, at: 2)
        }
        rows.reset()
        try db.execute("DROP TABLE key_packs")
    }

    /// Upgrade step 6's second half: the rows of `keys`, in the order
    /// written, into packs of a board's consecutive rows of one commit time;
    /// then the table goes.
    static func packsFromRows(_ db: SQLiteDatabase) throws(StoreError) {
        let rows = try db.prepare("SELECT board, key, rev, fingerprint, at FROM keys ORDER BY rowid")
        let insert = try db.prepare("INSERT INTO key_packs(board, at, count, keys) VALUES(?1, ?2, ?3, ?4)")
        var board = "", at = 0, count = 0
        var pack: [UInt8] = []
        func flush() throws(StoreError) {
            guard !pack.isEmpty else { return }
            insert.reset()
            try insert.bind(1, board)
            try insert.bind(2, at)
            try insert.bind(3, count)
            try insert.run(binding: pack, at: 4)
            pack.removeAll(keepingCapacity: true)
            count = 0
        }
        while try rows.step() {
            if rows.text(0) != board || rows.int(4) != at {
                try flush()
                board = rows.text(0)
                at = rows.int(4)
            }
            KeyPack.append(PackedKey(rows.text(1)), rev: rows.int(2), fingerprint: Int64(rows.int(3)), to: &pack)
            count += 1
        }
        try flush()
        rows.reset()
        try db.execute("DROP TABLE keys")
    }

    /// Upgrade step 3's second half: every row of the old `changes` table
    /// into chunks of up to `LogPlacement.flushAt` consecutive changes, then the table goes.
    static func runsFromRows(_ db: SQLiteDatabase) throws(StoreError) {
        let rows = try db.prepare("SELECT board, rev, ops, at, actor, session, action, inverse, summary FROM changes ORDER BY board, rev")
        let chunks = try SQLiteChunkWriter(db)
        var board = ""
        var run: [StoredChange] = []
        while try rows.step() {
            let name = rows.text(0)
            if name != board || run.count == LogPlacement.flushAt || (run.last.map { $0.rev + 1 != rows.int(1) } ?? false) {
                if !run.isEmpty { try chunks.write(board, [], run) }
                run = []
                board = name
            }
            let record = rows.isNull(6) ? nil : ChangeRecord(
                at: rows.int(3), actor: rows.text(4), session: rows.text(5), action: rows.blob(6), inverse: rows.blob(7), summary: rows.text(8))
            run.append(StoredChange(board: name, rev: rows.int(1), ops: rows.blob(2), record: record))
        }
        if !run.isEmpty { try chunks.write(board, [], run) }
        rows.reset()
        try db.execute("DROP TABLE changes")
    }

    /// Creates, upgrades or accepts the store's tables; returns the version it
    /// found (0 for a fresh file). Throws `schemaTooNew` for a newer store.
    @discardableResult
    static func prepare(_ db: SQLiteDatabase) throws(StoreError) -> Int {
        try db.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let found = try storedVersion(db)
            guard found <= version else {
                throw StoreError("the store was written by a newer foldsyncd (schema version \(found); this one knows \(version)); upgrade foldsyncd or use another file",
                                 schemaTooNew: true)
            }
            if found == 0 {
                try db.execute(create)
            } else {
                for v in found..<version {
                    try db.execute(upgrades[v]!)
                    if v == 3 { try runsFromRows(db) }
                    if v == 6 { try packsFromRows(db) }
                    if v == 7 { try commitsFromPacks(db) }
                }
            }
            try db.execute("PRAGMA user_version = \(version)")
            try db.execute("COMMIT")
            return found
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// `user_version`, or for a store of the first release its `meta` row; 0 when the file holds no store.
    static func storedVersion(_ db: SQLiteDatabase) throws(StoreError) -> Int {
        let uv = try db.prepare("PRAGMA user_version")
        let userVersion = try uv.step() ? uv.int(0) : 0
        if userVersion != 0 { return userVersion }
        let tables = try db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('boards', 'changes', 'chunks', 'meta')")
        guard try tables.step(), tables.int(0) > 0 else { return 0 }
        let meta = try db.prepare("SELECT value FROM meta WHERE key = 'schema'")
        guard try meta.step(), let v = Int(meta.text(0)) else {
            throw StoreError("the store has foldsync tables but no readable schema version")
        }
        return v
    }
}
