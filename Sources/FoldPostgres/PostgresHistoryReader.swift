import FoldCore

/// History reads on a session of their own (`BoardStore.historyReader`),
/// connected on first use and again after it breaks.
///
/// Used by one thread (the daemon's reader), hence `@unchecked Sendable`.
final class PostgresHistoryReader: HistoryReader, @unchecked Sendable {
    private let link: PGLink

    init(link: PGLink) { self.link = link }

    func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        try link.using { c throws(PGError) in try PostgresHistory.read(board: board, query, on: c) }
    }

    /// The row, its changes and its keys in one snapshot (REPEATABLE READ):
    /// another node's commit between the statements is in none. The keys
    /// come with the document: a key another node accepted is then a repeat
    /// here, even before this node's follower has read that commit.
    func readBoard(_ name: String, history: Int) throws(StoreError) -> BoardRead? {
        try link.using { c throws(PGError) -> BoardRead? in
            _ = try c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do throws(PGError) {
                let r = try c.query("SELECT epoch, rev, state FROM foldsync_boards WHERE name = $1", [name])
                guard r.rows == 1 else {
                    _ = try c.query("COMMIT")
                    return nil
                }
                let board = StoredBoard(name: name, epoch: r.text(0, 0) ?? "", rev: r.int(0, 1) ?? 0, state: r.bytes(0, 2))
                let changes = try c.query("SELECT rev, ops FROM foldsync_changes WHERE board = $1 AND rev > $2 AND rev <= $3 ORDER BY rev",
                                          [name, String(max(0, board.rev - history)), String(board.rev)])
                let keys = try c.query("SELECT key, rev, fingerprint, at FROM foldsync_keys WHERE board = $1 ORDER BY at, rev", [name])
                _ = try c.query("COMMIT")
                return BoardRead(board: board, changes: (0..<changes.rows).map {
                    StoredChange(board: name, rev: changes.int($0, 0) ?? 0, ops: changes.bytes($0, 1))
                }, keys: (0..<keys.rows).map { i in
                    StoredKey(board: name, key: keys.text(i, 0) ?? "", rev: keys.int(i, 1) ?? 0,
                              fingerprint: Int64(keys.int(i, 2) ?? 0), at: keys.int(i, 3) ?? 0)
                })
            } catch {
                if !error.connectionLost { _ = try? c.query("ROLLBACK") }
                throw error
            }
        }
    }

    func close() { link.drop() }
}
