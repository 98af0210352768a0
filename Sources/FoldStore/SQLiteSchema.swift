import FoldCore

/// The tables and their version (`PRAGMA user_version`). A store written by
/// an earlier release is upgraded in place, in one transaction, at open; one
/// written by a newer release is refused rather than misread.
enum SQLiteSchema {
    /// The version this binary writes and understands.
    static let version = 3

    /// A fresh store, at `version`.
    static let create = """
        CREATE TABLE boards(
            name TEXT PRIMARY KEY, epoch TEXT NOT NULL, rev INTEGER NOT NULL, state BLOB NOT NULL);
        CREATE TABLE changes(
            board TEXT NOT NULL, rev INTEGER NOT NULL, ops BLOB NOT NULL,
            at INTEGER NOT NULL DEFAULT 0, actor TEXT NOT NULL DEFAULT '', session TEXT NOT NULL DEFAULT '',
            action BLOB, inverse BLOB, summary TEXT NOT NULL DEFAULT '',
            PRIMARY KEY(board, rev)) WITHOUT ROWID;
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta(key, value) VALUES('schema', '\(version)');
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
    ]

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
                for v in found..<version { try db.execute(upgrades[v]!) }
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
        let tables = try db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('boards', 'changes', 'meta')")
        guard try tables.step(), tables.int(0) > 0 else { return 0 }
        let meta = try db.prepare("SELECT value FROM meta WHERE key = 'schema'")
        guard try meta.step(), let v = Int(meta.text(0)) else {
            throw StoreError("the store has foldsync tables but no readable schema version")
        }
        return v
    }
}
