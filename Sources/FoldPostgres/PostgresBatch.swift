import FoldCore
import Glibc

/// The statements of one batch, inside the caller's transaction.
enum PostgresBatch {
    /// Rows per multi-row INSERT: 10 parameters each at most (a logged change), well under libpq's 65,535.
    static let rowsPerInsert = 1_000

    /// A handful of statements whatever the batch holds (a round trip each):
    /// the locks, every board, every change, the pruning (deletions are rare:
    /// two statements each).
    static func write(_ batch: CommitBatch, on c: PGConnection) throws(PGError) {
        try lockAndCheck(batch, on: c)
        for name in batch.deletions {
            try c.query("DELETE FROM foldsync_boards WHERE name = $1", [name])
            try c.query("DELETE FROM foldsync_changes WHERE board = $1", [name])
            try c.query("DELETE FROM foldsync_keys WHERE board = $1", [name])
        }
        try writeKeys(batch, on: c)
        // One row per board (one INSERT may not touch a row twice): a later put of a board wins.
        var last: [String: Int] = [:]
        for (i, b) in batch.boards.enumerated() { last[b.name] = i }
        let boards = batch.boards.enumerated().filter { last[$0.element.name] == $0.offset }.map(\.element)
        try insertRows("INSERT INTO foldsync_boards(name, epoch, rev, state) VALUES",
                       boards.map { [$0.name, $0.epoch, String($0.rev), String(decoding: $0.encodedState, as: UTF8.self)] },
                       "ON CONFLICT(name) DO UPDATE SET epoch = EXCLUDED.epoch, rev = EXCLUDED.rev, state = EXCLUDED.state", on: c)
        // A change is logged with the epoch its board is put at in the same batch.
        var epochs: [String: String] = [:]
        for b in batch.boards { epochs[b.name] = b.epoch }
        try insertRows("INSERT INTO foldsync_changes(board, epoch, rev, ops, at, actor, session, action, inverse, summary) VALUES",
                       batch.changes.map { ch -> [String?] in
                           let r = ch.record
                           return [ch.board, epochs[ch.board] ?? "", String(ch.rev), String(decoding: ch.ops, as: UTF8.self),
                                   // A record that already has its time (migrate-store) keeps it.
                                   String(r.map { $0.at > 0 ? $0.at : batch.now } ?? batch.now), r?.actor ?? "", r?.session ?? "",
                                   r.map { String(decoding: $0.action, as: UTF8.self) }, r.map { String(decoding: $0.inverse, as: UTF8.self) },
                                   r?.summary ?? ""]
                       },
                       """
                       ON CONFLICT(board, rev) DO UPDATE SET epoch = EXCLUDED.epoch, ops = EXCLUDED.ops, at = EXCLUDED.at,
                       actor = EXCLUDED.actor, session = EXCLUDED.session, action = EXCLUDED.action,
                       inverse = EXCLUDED.inverse, summary = EXCLUDED.summary
                       """, on: c)
        // Kept: the last history-per-board changes, and the ones from the first younger than
        // history-days on. Each board's bound is found first (reading only the changes it
        // deletes), then its changes below it go.
        let pruned = batch.boards.filter { batch.prunable(below: $0.rev) > 0 }
        if !pruned.isEmpty {
            let upTo = JSON.object(JSONObject(pruned.map { ($0.name, JSON.int(batch.prunable(below: $0.rev))) }))
            try c.query("""
                DELETE FROM foldsync_changes c USING (
                    SELECT t.board, coalesce((SELECT y.rev FROM foldsync_changes y
                        WHERE y.board = t.board AND y.rev <= t.upto::bigint AND y.at >= $2 ORDER BY y.rev LIMIT 1),
                        t.upto::bigint + 1) AS below
                    FROM json_each_text($1::json) AS t(board, upto)) AS p
                WHERE c.board = p.board AND c.rev < p.below
                """, [String(decoding: upTo.encoded(), as: UTF8.self), String(batch.cutoff)])
        }
        // Delivered at COMMIT, to every daemon's follower: a wake-up, the tables say what changed
        // (a batch of checks alone changed nothing).
        if !batch.isEmpty { try c.query("NOTIFY \(PostgresFollower.channel)") }
    }

    /// The batch's keys, the ones the hub forgot, and each keyed board's keys
    /// past both bounds (older than `keyKeepMs`, below its last `historyLimit` revs).
    static func writeKeys(_ batch: CommitBatch, on c: PGConnection) throws(PGError) {
        if !batch.forgottenKeys.isEmpty {
            let list = JSON.array(batch.forgottenKeys.map { JSON.array([.string($0.board), .string($0.key)]) })
            try c.query("""
                DELETE FROM foldsync_keys k USING json_array_elements($1::json) AS f(v)
                WHERE k.board = f.v->>0 AND k.key = f.v->>1
                """, [String(decoding: list.encoded(), as: UTF8.self)])
        }
        guard !batch.keys.isEmpty else { return }
        try insertRows("INSERT INTO foldsync_keys(board, key, rev, fingerprint, at) VALUES",
                       batch.keys.map { [$0.board, $0.key, String($0.rev), String($0.fingerprint), String($0.at == 0 ? batch.now : $0.at)] },
                       "ON CONFLICT(board, key) DO NOTHING", on: c)
        var newest: [String: Int] = [:]
        // Every 64 revs of a board, as SQLite does: not a DELETE per commit.
        for k in batch.keys where k.rev > 0 && k.rev % 64 == 0 { newest[k.board] = max(newest[k.board] ?? 0, k.rev) }
        guard !newest.isEmpty else { return }
        let bounds = JSON.object(JSONObject(newest.map { ($0.key, JSON.int($0.value - batch.historyLimit)) }))
        try c.query("""
            DELETE FROM foldsync_keys k USING json_each_text($1::json) AS t(board, upto)
            WHERE k.board = t.board AND k.rev <= t.upto::bigint AND k.at < $2
            """, [String(decoding: bounds.encoded(), as: UTF8.self), String(batch.now &- batch.keyKeepMs)])
    }

    /// One multi-row INSERT per `rowsPerInsert` rows (each row as many
    /// values as the first), passed out of band.
    static func insertRows(_ head: String, _ rows: [[String?]], _ tail: String, on c: PGConnection) throws(PGError) {
        var start = 0
        let width = rows.first?.count ?? 0
        while start < rows.count {
            let chunk = rows[start..<min(start + rowsPerInsert, rows.count)]
            var sql = head
            var params: [String?] = []
            for (i, row) in chunk.enumerated() {
                let n = i * width
                sql += (i == 0 ? "" : ",") + "(" + (1...width).map { "$\(n + $0)" }.joined(separator: ", ") + ")"
                params += row
            }
            try c.query(sql + " " + tail, params)
            start += rowsPerInsert
        }
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
    ///
    /// The batch's checks (answers given without a change) take the same
    /// lock: each board must stand where the answer was judged, else another
    /// node moved it and the answer would be a stale read.
    static func lockAndCheck(_ batch: CommitBatch, on c: PGConnection) throws(PGError) {
        guard !batch.boards.isEmpty || !batch.checks.isEmpty else { return }
        let bases = bases(batch)
        // One statement; the rows are locked in name order (the sort runs below the lock):
        // one order for every node, so no deadlock.
        let names = JSON.array((batch.boards.map(\.name) + batch.checks.map(\.name)).map(JSON.string))
        let r = try c.query("""
            SELECT name, epoch, rev FROM foldsync_boards WHERE name IN (SELECT json_array_elements_text($1::json))
            ORDER BY name FOR UPDATE
            """, [String(decoding: names.encoded(), as: UTF8.self)])
        var rows: [String: (epoch: String?, rev: Int?)] = [:]
        for i in 0..<r.rows { if let n = r.text(i, 0) { rows[n] = (r.text(i, 1), r.int(i, 2)) } }
        for b in batch.boards where !batch.created.contains(b.name) {
            guard let row = rows[b.name], row.epoch == b.epoch else {
                throw PGError(message: "board '\(b.name)' was deleted or re-created by another node", sqlstate: conflictState, connectionLost: false)
            }
            let base = bases[b.name] ?? b.rev
            guard row.rev == base else {
                throw PGError(message: "board '\(b.name)' was moved by another node (it is at rev \(row.rev ?? -1), this batch follows rev \(base))",
                              sqlstate: conflictState, connectionLost: false)
            }
        }
        for check in batch.checks {
            let row = rows[check.name]
            guard row?.epoch == check.epoch, check.epoch == nil || row?.rev == check.rev else {
                throw PGError(message: "board '\(check.name)' was moved by another node since this one answered from rev \(check.rev)",
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
        for check in batch.checks {
            let r = try c.query("SELECT epoch, rev FROM foldsync_boards WHERE name = $1", [check.name])
            guard r.rows == 1, let epoch = r.text(0, 0), let rev = r.int(0, 1) else {
                if check.epoch != nil { out.append(.deleted(board: check.name)) }
                continue
            }
            if epoch == check.epoch && rev == check.rev { continue }
            out.append(try PostgresFollower.read(check.name, after: check.epoch.map { ($0, check.rev) }, to: (epoch, rev), on: c))
        }
        return out
    }

    /// Our own SQLSTATE-like code for `lockAndCheck`'s refusal (class 40: transaction rollback).
    static let conflictState = "40F01"

    /// After a connection lost during COMMIT: ends the session that ran it
    /// and waits until it is gone, so its transaction is settled (committed or
    /// rolled back) before `isCommitted` looks. A session still inside its
    /// COMMIT finishes it first (the server holds the signal until then); one
    /// that never got it rolls back. Throws when it outlives `timeoutMs`.
    static func awaitEnd(of pid: Int32, on c: PGConnection, timeoutMs: Int) throws(PGError) {
        guard pid != 0 else { return }
        try c.query("SELECT pg_terminate_backend($1)", [String(pid)])
        let deadline = ContinuousClock.now + .milliseconds(timeoutMs)
        while try c.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [String(pid)]).rows != 0 {
            guard ContinuousClock.now < deadline else {
                throw PGError(message: "the session that ran a COMMIT cut short (pid \(pid)) did not end within \(timeoutMs) ms; its outcome is unknown",
                              connectionLost: false)
            }
            usleep(10_000)
        }
    }

    /// After a connection lost during COMMIT (and `awaitEnd`): true when every board of the
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
