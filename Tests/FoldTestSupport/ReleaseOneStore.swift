/// A store as the first release (schema 1) left it: its exact SQL, kept
/// here so the upgrade tests of the engine and of the daemon build the same one.
public enum ReleaseOneStore {
    /// The first release's tables, exactly as its SQLiteStore created them.
    public static let sqliteSchema = """
        CREATE TABLE IF NOT EXISTS boards(
            name TEXT PRIMARY KEY, epoch TEXT NOT NULL, rev INTEGER NOT NULL, state BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS changes(
            board TEXT NOT NULL, rev INTEGER NOT NULL, ops BLOB NOT NULL,
            PRIMARY KEY(board, rev)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '1');
        """

    /// Two boards, one with kept changes (its resume points), as release one wrote them.
    public static let sqliteData = """
        INSERT INTO boards VALUES('default', '00000000000000aa', 3,
            '{"mode":"single","sections":[{"id":"s0","title":"Today","items":[],"expanded":true},{"id":"s1","title":"Later","items":[],"expanded":false}]}');
        INSERT INTO boards VALUES('ops', '00000000000000bb', 0, '{"mode":"multi","sections":[]}');
        INSERT INTO changes VALUES('default', 2, '[{"op":"replace","path":"/sections/1/expanded","value":false}]');
        INSERT INTO changes VALUES('default', 3, '[{"op":"replace","path":"/sections/0/expanded","value":true}]');
        """
}
