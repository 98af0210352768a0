import FoldCore

/// The history queries, prepared on one connection (the store's own, or a
/// reader's): a board's chunks from the file, and its staged changes from
/// `WaitingChanges`, merged by rev.
final class SQLiteHistoryStatements {
    private let forward, backward: SQLiteStatement
    private let staged: WaitingChanges

    init(_ db: SQLiteDatabase, staged: WaitingChanges) throws(StoreError) {
        self.staged = staged
        // From the chunk holding rev ?2 + 1 (or the first) on.
        forward = try db.prepare("""
            SELECT first, changes FROM chunks WHERE board = ?1 AND first >= coalesce(
                (SELECT first FROM chunks WHERE board = ?1 AND first <= ?2 + 1 ORDER BY first DESC LIMIT 1), 0)
            ORDER BY first
            """)
        backward = try db.prepare("SELECT first, changes FROM chunks WHERE board = ?1 AND first < ?2 ORDER BY first DESC")
    }

    /// One statement, so one read transaction: the page is consistent even
    /// while commits go on. The staged changes are taken first: a change
    /// moved to a chunk meanwhile is then in both, and counted once.
    func read(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        let waiting = staged.changes(of: board)
        switch query.anchor {
        case .since(let rev): return try since(rev, limit: query.limit, board: board, waiting: waiting)
        case .latest: return try before(.max, limit: query.limit, board: board, waiting: waiting)
        case .before(let rev): return try before(rev, limit: query.limit, board: board, waiting: waiting)
        }
    }

    private func since(_ rev: Int, limit: Int, board: String, waiting: [StoredChange]) throws(StoreError) -> [StoredChange] {
        guard limit > 0 else { return [] }
        var out: [StoredChange] = []
        let s = forward
        s.reset()
        defer { s.reset() }
        try s.bind(1, board)
        try s.bind(2, rev)
        rows: while try s.step() {
            for c in try LogChunk.decode(s.blob(1), board: board) where c.rev > (out.last?.rev ?? rev) {
                out.append(c)
                if out.count == limit { break rows }
            }
        }
        s.reset()
        for c in waiting where out.count < limit && c.rev > (out.last?.rev ?? rev) { out.append(c) }
        return out
    }

    private func before(_ rev: Int, limit: Int, board: String, waiting: [StoredChange]) throws(StoreError) -> [StoredChange] {
        guard limit > 0 else { return [] }
        // Newest part first; each element is copied once, into the result.
        let newest = waiting[..<(waiting.firstIndex { $0.rev >= rev } ?? waiting.endIndex)].suffix(limit)
        var parts: [ArraySlice<StoredChange>] = [newest]
        var count = newest.count
        // Below this rev: older than everything taken (a change moved to a chunk meanwhile is taken once).
        var floor = newest.first?.rev ?? rev
        let s = backward
        s.reset()
        defer { s.reset() }
        try s.bind(1, board)
        try s.bind(2, floor)
        while count < limit, try s.step() {
            let run = try LogChunk.decode(s.blob(1), board: board)
            let part = run[..<(run.firstIndex { $0.rev >= floor } ?? run.endIndex)].suffix(limit - count)
            guard let oldest = part.first else { continue }
            parts.append(part)
            count += part.count
            floor = oldest.rev
        }
        return Array(parts.reversed().joined())
    }
}
