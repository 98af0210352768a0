import FoldCore

/// The two history queries, prepared on one connection: the store's own, or a reader's.
final class SQLiteHistoryStatements {
    private let since, before: SQLiteStatement

    init(_ db: SQLiteDatabase) throws(StoreError) {
        let columns = "rev, ops, at, actor, session, action, inverse, summary"
        since = try db.prepare("SELECT \(columns) FROM changes WHERE board = ?1 AND rev > ?2 ORDER BY rev LIMIT ?3")
        before = try db.prepare("SELECT \(columns) FROM changes WHERE board = ?1 AND rev < ?2 ORDER BY rev DESC LIMIT ?3")
    }

    /// One statement, so one read transaction: the page is consistent even while commits go on.
    func read(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        let s: SQLiteStatement
        let anchor: Int
        switch query.anchor {
        case .latest: (s, anchor) = (before, .max)
        case .before(let rev): (s, anchor) = (before, rev)
        case .since(let rev): (s, anchor) = (since, rev)
        }
        s.reset()
        defer { s.reset() }
        try s.bind(1, board)
        try s.bind(2, anchor)
        try s.bind(3, query.limit)
        var out: [StoredChange] = []
        while try s.step() {
            let record = s.isNull(5) ? nil : ChangeRecord(
                at: s.int(2), actor: s.text(3), session: s.text(4), action: s.blob(5), inverse: s.blob(6), summary: s.text(7))
            out.append(StoredChange(board: board, rev: s.int(0), ops: s.blob(1), record: record))
        }
        if case .since = query.anchor { return out }
        return out.reversed()
    }
}
