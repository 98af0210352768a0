import FoldCore

/// The tables, created and versioned by the daemon at start. A row in
/// `foldsync_meta` names the schema version; a database written by a newer
/// foldsyncd is refused rather than misread.
enum PostgresSchema {
    /// The version this binary writes and understands.
    static let version = 4

    /// Held (transaction-scoped) while creating, so daemons starting together
    /// do not race on `CREATE TABLE`.
    static let setupLock = 0x666f_6c64_7379_6e63 as Int64   // "foldsync"

    static let create = """
        CREATE TABLE IF NOT EXISTS foldsync_boards(
            name text PRIMARY KEY, epoch text NOT NULL, rev bigint NOT NULL, state text NOT NULL);
        CREATE TABLE IF NOT EXISTS foldsync_changes(
            board text NOT NULL, epoch text NOT NULL, rev bigint NOT NULL, ops text NOT NULL,
            at bigint NOT NULL DEFAULT 0, actor text NOT NULL DEFAULT '', session text NOT NULL DEFAULT '',
            action text, inverse text, summary text NOT NULL DEFAULT '',
            PRIMARY KEY(board, rev));
        \(keys)
        """

    /// Accepted actions' keys (`StoredKey`).
    static let keys = """
        CREATE TABLE IF NOT EXISTS foldsync_keys(
            board text NOT NULL, key text NOT NULL, rev bigint NOT NULL, fingerprint bigint NOT NULL, at bigint NOT NULL,
            PRIMARY KEY(board, key));
        CREATE INDEX IF NOT EXISTS foldsync_keys_by_age ON foldsync_keys(board, at);
        CREATE INDEX IF NOT EXISTS foldsync_keys_by_rev ON foldsync_keys(board, rev);
        """

    /// `upgrades[v]` takes a database from version `v` to `v + 1`, inside the setup transaction.
    static let upgrades: [Int: String] = [
        1: """
            ALTER TABLE foldsync_changes
                ADD COLUMN at bigint NOT NULL DEFAULT 0, ADD COLUMN actor text NOT NULL DEFAULT '',
                ADD COLUMN session text NOT NULL DEFAULT '', ADD COLUMN action text, ADD COLUMN inverse text,
                ADD COLUMN summary text NOT NULL DEFAULT '';
            """,
        // The tables stay; a change of fields may now store `FieldUndo`'s compact undo, which an older release cannot read.
        2: "SELECT 1",
        3: keys,
    ]

    /// Creates the tables on a fresh database; refuses one whose version
    /// this binary does not know.
    static func prepare(_ conn: PGConnection) throws(PostgresOpenError) {
        let found: String
        do throws(PGError) {
            try conn.query("BEGIN")
            try conn.query("SELECT pg_advisory_xact_lock(\(setupLock))")
            try conn.query("CREATE TABLE IF NOT EXISTS foldsync_meta(key text PRIMARY KEY, value text NOT NULL)")
            let row = try conn.query("SELECT value FROM foldsync_meta WHERE key = 'schema'")
            if row.rows == 0 {
                try conn.query(create)
                try conn.query("INSERT INTO foldsync_meta(key, value) VALUES('schema', $1)", [String(version)])
            }
            try conn.query(PostgresPresence.create)
            found = row.rows == 0 ? String(version) : row.text(0, 0) ?? ""
            if let v = Int(found), v < version {
                // An earlier release's tables: upgraded in place, in this one transaction.
                for step in v..<version { try conn.query(upgrades[step]!) }
                try conn.query("UPDATE foldsync_meta SET value = $1 WHERE key = 'schema'", [String(version)])
            }
            // Nothing written when the schema was current: committing only ends the lock.
            try conn.query("COMMIT")
        } catch {
            _ = try? conn.query("ROLLBACK")
            throw .failed(error.storeError)
        }
        guard let v = Int(found) else { throw .unreadableSchema(found) }
        guard v <= version else { throw .schemaTooNew(found: v, known: version) }
    }
}

/// Why the PostgreSQL store could not be opened.
public enum PostgresOpenError: Error, CustomStringConvertible {
    /// The database was set up by a newer foldsyncd: refused, not misread.
    case schemaTooNew(found: Int, known: Int)
    case unreadableSchema(String)
    case failed(StoreError)

    public var description: String {
        switch self {
        case .schemaTooNew(let found, let known):
            return "the database holds foldsync schema version \(found), newer than this foldsyncd understands (\(known)); upgrade foldsyncd or use another database"
        case .unreadableSchema(let text):
            return "the database's foldsync schema version '\(text)' is not a number"
        case .failed(let e):
            return e.description
        }
    }
}
