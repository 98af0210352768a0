import FoldCore

/// The statements of one batch, inside the caller's transaction.
enum PostgresBatch {
    /// Rows per multi-row INSERT: 4 parameters each, well under libpq's 65,535.
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
            var sql = "INSERT INTO foldsync_changes(board, epoch, rev, ops) VALUES"
            var params: [String?] = []
            for (i, ch) in chunk.enumerated() {
                let n = i * 4
                sql += (i == 0 ? "" : ",") + "($\(n + 1), $\(n + 2), $\(n + 3), $\(n + 4))"
                params += [ch.board, epochs[ch.board] ?? "", String(ch.rev), String(decoding: ch.ops, as: UTF8.self)]
            }
            sql += " ON CONFLICT(board, rev) DO UPDATE SET epoch = EXCLUDED.epoch, ops = EXCLUDED.ops"
            try c.query(sql, params)
            start += rowsPerInsert
        }
        for b in batch.boards where b.rev > batch.historyLimit {
            try c.query("DELETE FROM foldsync_changes WHERE board = $1 AND rev <= $2", [b.name, String(b.rev - batch.historyLimit)])
        }
        // Delivered at COMMIT, to every daemon's follower: a wake-up, the tables say what changed.
        try c.query("NOTIFY \(PostgresFollower.channel)")
    }

    /// Locks the rows of the boards the batch puts (`FOR UPDATE`, so two
    /// daemons on one database take turns per board) and refuses the batch
    /// when another daemon moved one of them since this one read it: its
    /// revs would collide with theirs, and a change would be lost.
    ///
    /// A board the batch creates may replace whatever row is there (a PUT
    /// wins over a board of that name another node created meanwhile). Any
    /// other must stand at the batch's epoch and base rev: gone means another
    /// node deleted it, another epoch that it was re-created.
    static func lockAndCheck(_ batch: CommitBatch, on c: PGConnection) throws(PGError) {
        let bases = bases(batch)
        for b in batch.boards.sorted(by: { $0.name < $1.name }) {   // one lock order for every node: no deadlock
            let r = try c.query("SELECT epoch, rev FROM foldsync_boards WHERE name = $1 FOR UPDATE", [b.name])
            if batch.created.contains(b.name) { continue }
            guard r.rows == 1, r.text(0, 0) == b.epoch else {
                throw PGError(message: "board '\(b.name)' was deleted or re-created by another node", sqlstate: conflictState, connectionLost: false)
            }
            let base = bases[b.name] ?? b.rev
            guard r.int(0, 1) == base else {
                throw PGError(message: "board '\(b.name)' was moved by another node (it is at rev \(r.int(0, 1) ?? -1), this batch follows rev \(base))",
                              sqlstate: conflictState, connectionLost: false)
            }
        }
    }

    /// The rev each board's changes in the batch follow: where this daemon
    /// last saw it (a board without changes: its rev in the batch).
    static func bases(_ batch: CommitBatch) -> [String: Int] {
        var out: [String: Int] = [:]
        for ch in batch.changes where out[ch.board] == nil { out[ch.board] = ch.rev - 1 }
        for b in batch.boards where out[b.name] == nil { out[b.name] = b.rev }
        return out
    }

    /// After `lockAndCheck` refused the batch (its transaction still open):
    /// every board of it that another daemon moved, from where this daemon
    /// saw it to where it stands.
    static func caughtUp(_ batch: CommitBatch, on c: PGConnection) throws(PGError) -> [StoreUpdate] {
        let bases = bases(batch)
        var out: [StoreUpdate] = []
        for b in batch.boards where !batch.created.contains(b.name) {
            let base = bases[b.name] ?? b.rev
            let r = try c.query("SELECT epoch, rev FROM foldsync_boards WHERE name = $1", [b.name])
            guard r.rows == 1, let epoch = r.text(0, 0), let rev = r.int(0, 1) else {
                out.append(.deleted(board: b.name))
                continue
            }
            if epoch == b.epoch && rev == base { continue }
            out.append(try PostgresFollower.read(b.name, after: (b.epoch, base), to: (epoch, rev), on: c))
        }
        return out
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
