import FoldCore

/// The statements of one batch, inside the caller's transaction.
enum PostgresBatch {
    /// Parameters per logged change.
    static let columns = 10
    /// Rows per multi-row INSERT: `columns` parameters each, well under libpq's 65,535.
    static let rowsPerInsert = 1_000

    static func write(_ batch: CommitBatch, on c: PGConnection) throws(PGError) {
        try lockAndCheck(batch, on: c)
        for name in batch.deletions {
            try c.query("DELETE FROM foldsync_boards WHERE name = $1", [name])
            try c.query("DELETE FROM foldsync_changes WHERE board = $1", [name])
        }
        for b in batch.boards {
            try c.query("""
                INSERT INTO foldsync_boards(name, epoch, rev, state) VALUES($1, $2, $3, $4)
                ON CONFLICT(name) DO UPDATE SET epoch = EXCLUDED.epoch, rev = EXCLUDED.rev, state = EXCLUDED.state
                """, [b.name, b.epoch, String(b.rev), String(decoding: b.state, as: UTF8.self)])
        }
        // A change is logged with the epoch its board is put at in the same batch.
        var epochs: [String: String] = [:]
        for b in batch.boards { epochs[b.name] = b.epoch }
        var start = 0
        while start < batch.changes.count {
            let chunk = batch.changes[start..<min(start + rowsPerInsert, batch.changes.count)]
            var sql = "INSERT INTO foldsync_changes(board, epoch, rev, ops, at, actor, session, action, inverse, summary) VALUES"
            var params: [String?] = []
            for (i, ch) in chunk.enumerated() {
                let n = i * columns
                sql += (i == 0 ? "" : ",") + "(" + (1...columns).map { "$\(n + $0)" }.joined(separator: ", ") + ")"
                let r = ch.record
                params += [ch.board, epochs[ch.board] ?? "", String(ch.rev), String(decoding: ch.ops, as: UTF8.self),
                           String(batch.now), r?.actor ?? "", r?.session ?? "",
                           r.map { String(decoding: $0.action, as: UTF8.self) }, r.map { String(decoding: $0.inverse, as: UTF8.self) },
                           r?.summary ?? ""]
            }
            sql += """
                 ON CONFLICT(board, rev) DO UPDATE SET epoch = EXCLUDED.epoch, ops = EXCLUDED.ops, at = EXCLUDED.at,
                 actor = EXCLUDED.actor, session = EXCLUDED.session, action = EXCLUDED.action,
                 inverse = EXCLUDED.inverse, summary = EXCLUDED.summary
                """
            try c.query(sql, params)
            start += rowsPerInsert
        }
        for b in batch.boards where batch.prunable(below: b.rev) > 0 {
            // Kept: the last history-per-board changes, and the ones from the first younger than
            // history-days on; reading only what it deletes, as SQLiteStatements.pruneSQL explains.
            try c.query("""
                DELETE FROM foldsync_changes WHERE board = $1 AND rev < coalesce(
                    (SELECT rev FROM foldsync_changes WHERE board = $1 AND rev <= $2 AND at >= $3 ORDER BY rev LIMIT 1), $2 + 1)
                """, [b.name, String(batch.prunable(below: b.rev)), String(batch.cutoff)])
        }
        // Delivered at COMMIT, to every daemon's follower: a wake-up, the tables say what changed.
        try c.query("NOTIFY \(PostgresFollower.channel)")
    }

    /// Locks the rows of the boards the batch puts (`FOR UPDATE`, so two
    /// daemons on one database take turns per board) and refuses the batch
    /// when another daemon moved one of them since this one read it: its
    /// revs would collide with theirs, and a change would be lost.
    ///
    /// A row at another epoch (or none) is being replaced or created by this
    /// batch: epochs are random per creation, so only the same epoch can be stale.
    static func lockAndCheck(_ batch: CommitBatch, on c: PGConnection) throws(PGError) {
        var firstRev: [String: Int] = [:]
        for ch in batch.changes where firstRev[ch.board] == nil { firstRev[ch.board] = ch.rev }
        for b in batch.boards.sorted(by: { $0.name < $1.name }) {   // one lock order for every node: no deadlock
            let r = try c.query("SELECT epoch, rev FROM foldsync_boards WHERE name = $1 FOR UPDATE", [b.name])
            guard r.rows == 1, r.text(0, 0) == b.epoch else { continue }
            let base = firstRev[b.name].map { $0 - 1 } ?? b.rev
            guard r.int(0, 1) == base else {
                throw PGError(message: "board '\(b.name)' was moved by another node (it is at rev \(r.int(0, 1) ?? -1), this batch follows rev \(base))",
                              sqlstate: conflictState, connectionLost: false)
            }
        }
    }

    /// Our own SQLSTATE-like code for `lockAndCheck`'s refusal (class 40: transaction rollback).
    static let conflictState = "40F01"

    /// After a connection lost during COMMIT: true when every board of the
    /// batch stands where the batch put it (so the COMMIT happened).
    static func isCommitted(_ batch: CommitBatch, on c: PGConnection) throws(PGError) -> Bool {
        for b in batch.boards {
            let r = try c.query("SELECT epoch, rev FROM foldsync_boards WHERE name = $1", [b.name])
            guard r.rows == 1, r.text(0, 0) == b.epoch, r.int(0, 1) == b.rev else { return false }
        }
        for name in batch.deletions where !batch.boards.contains(where: { $0.name == name }) {
            if try c.query("SELECT 1 FROM foldsync_boards WHERE name = $1", [name]).rows != 0 { return false }
        }
        return true
    }
}
