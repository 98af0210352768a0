import FoldCore

/// The history queries, on whichever session asks: the store's or a reader's.
enum PostgresHistory {
    /// One statement: under READ COMMITTED it sees every change committed before it began.
    static func read(board: String, _ query: HistoryQuery, on c: PGConnection) throws(PGError) -> [StoredChange] {
        let columns = "rev, ops, at, actor, session, action, inverse, summary"
        let r: PGResult
        switch query.anchor {
        case .since(let rev):
            r = try c.query("SELECT \(columns) FROM foldsync_changes WHERE board = $1 AND rev > $2 ORDER BY rev LIMIT $3",
                            [board, String(rev), String(query.limit)])
        case .before(let rev):
            r = try c.query("SELECT \(columns) FROM foldsync_changes WHERE board = $1 AND rev < $2 ORDER BY rev DESC LIMIT $3",
                            [board, String(rev), String(query.limit)])
        case .latest:
            r = try c.query("SELECT \(columns) FROM foldsync_changes WHERE board = $1 ORDER BY rev DESC LIMIT $2",
                            [board, String(query.limit)])
        }
        let out = (0..<r.rows).map { i in
            let record = r.text(i, 5).map { action in
                ChangeRecord(at: r.int(i, 2) ?? 0, actor: r.text(i, 3) ?? "", session: r.text(i, 4) ?? "",
                             action: Array(action.utf8), inverse: r.bytes(i, 6), summary: r.text(i, 7) ?? "")
            }
            return StoredChange(board: board, rev: r.int(i, 0) ?? 0, ops: r.bytes(i, 1), record: record)
        }
        if case .since = query.anchor { return out }
        return out.reversed()
    }
}
