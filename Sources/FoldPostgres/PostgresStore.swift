import CLibPQ
import FoldCore
import Glibc

/// The PostgreSQL engine: boards and their change log in tables, one
/// transaction per batch (so a group of changes costs one WAL flush), the
/// commit returned only after PostgreSQL's COMMIT (`synchronous_commit`
/// as the server sets it, `on` by default).
///
/// Not thread-safe by itself: used at start-up, then only by the committer
/// thread (the `BoardStore` contract), hence `@unchecked Sendable`.
public final class PostgresStore: BoardStore, @unchecked Sendable {
    private let link: PGLink
    /// A refused batch's transaction, kept open with its one board's row
    /// locked until the daemon's retry comes (see `write`), on this connection.
    private var holding: (board: String, on: PGConnection, since: ContinuousClock.Instant)?
    /// The longest a refused batch's lock is kept for its retry.
    static let maxHold: Duration = .milliseconds(500)

    /// Connects and prepares the schema. `timeoutMs` bounds every wait: the
    /// connect, a statement, a row lock.
    public init(uri: String, timeoutMs: Int = 2_000) throws(PostgresOpenError) {
        let conn: PGConnection
        do throws(PGError) {
            conn = try PGConnection(uri: uri, timeoutMs: timeoutMs)
        } catch {
            throw .failed(error.storeError)
        }
        try PostgresSchema.prepare(conn)
        link = PGLink(uri: uri, timeoutMs: timeoutMs, adopting: conn)
    }

    /// Connections made again after one broke (any thread).
    public var reconnects: Int { link.reconnects }

    func using<T>(_ body: (PGConnection) throws(PGError) -> T) throws(StoreError) -> T { try link.using(body) }

    public func loadBoards() throws(StoreError) -> [StoredBoard] {
        try using { c throws(PGError) in
            let r = try c.query("SELECT name, epoch, rev, state FROM foldsync_boards ORDER BY name")
            return (0..<r.rows).map { i in
                StoredBoard(name: r.text(i, 0) ?? "", epoch: r.text(i, 1) ?? "", rev: r.int(i, 2) ?? 0, state: r.bytes(i, 3))
            }
        }
    }

    public func loadCatalog() throws(StoreError) -> [CatalogEntry] {
        try using { c throws(PGError) in
            let r = try c.query("SELECT name, epoch, rev FROM foldsync_boards ORDER BY name")
            return (0..<r.rows).map { i in CatalogEntry(name: r.text(i, 0) ?? "", epoch: r.text(i, 1) ?? "", rev: r.int(i, 2) ?? 0) }
        }
    }

    public func loadKeys() throws(StoreError) -> [StoredKey] {
        try using { c throws(PGError) in
            let r = try c.query("SELECT board, key, rev, fingerprint, at FROM foldsync_keys ORDER BY board, at, rev")
            return (0..<r.rows).map { i in
                StoredKey(board: r.text(i, 0) ?? "", key: r.text(i, 1) ?? "", rev: r.int(i, 2) ?? 0,
                          fingerprint: Int64(r.int(i, 3) ?? 0), at: r.int(i, 4) ?? 0)
            }
        }
    }

    public func loadChanges(board: String, after rev: Int) throws(StoreError) -> [StoredChange] {
        try using { c throws(PGError) in
            let r = try c.query("SELECT rev, ops FROM foldsync_changes WHERE board = $1 AND rev > $2 ORDER BY rev",
                                [board, String(rev)])
            return (0..<r.rows).map { StoredChange(board: board, rev: r.int($0, 0) ?? 0, ops: r.bytes($0, 1)) }
        }
    }

    public func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        try using { c throws(PGError) in try PostgresHistory.read(board: board, query, on: c) }
    }

    /// A second session on the same database, for history reads on a thread
    /// of their own: they never queue behind a commit's row locks or WAL flush.
    public func historyReader() throws(StoreError) -> any HistoryReader & Sendable {
        PostgresHistoryReader(link: PGLink(uri: link.uri, timeoutMs: link.timeoutMs))
    }

    public func commit(_ batch: CommitBatch) throws(StoreError) {
        var caughtUp: [StoreUpdate] = []
        do throws(StoreError) {
            try write(batch, caughtUp: &caughtUp)
        } catch {
            var e = error
            e.caughtUp = caughtUp
            throw e
        }
    }

    /// One transaction, committed or rolled back, with one exception that
    /// makes the turn fair on a contended board. A batch refused because
    /// another node moved its one board keeps its transaction open, the row
    /// still locked, and reads the board as it stands (`caughtUp`); the
    /// daemon applies that, re-applies its actions and sends the retry, which
    /// runs in the same transaction and so cannot be refused again. The
    /// other nodes wait for the row meanwhile. Without it the node that had
    /// just won, caught up already, won again and again while the others
    /// caught up and retried: an ack p99 of 20 times the p50 on one board
    /// shared by three nodes. A retry that does not come within `maxHold`,
    /// or that touches other boards, finds the transaction rolled back first.
    private func write(_ batch: CommitBatch, caughtUp: inout [StoreUpdate]) throws(StoreError) {
        let names = Set(batch.boards.map(\.name) + batch.checks.map(\.name) + batch.deletions)
        try using { c throws(PGError) in
            if let h = holding, h.on === c, names == [h.board], batch.deletions.isEmpty, batch.created.isEmpty {
                // The retry: its board has stayed locked since it was read.
                holding = nil
            } else {
                letGo(on: c)
                try c.query("BEGIN")
            }
            do throws(PGError) {
                try PostgresBatch.write(batch, on: c)
            } catch {
                if error.sqlstate == PostgresBatch.conflictState {
                    // Best effort: without it the follower catches the daemon up, only later.
                    caughtUp = (try? PostgresBatch.caughtUp(batch, on: c)) ?? []
                    if names.count == 1, batch.deletions.isEmpty, !caughtUp.isEmpty, let board = names.first {
                        holding = (board, c, .now)
                        throw error
                    }
                }
                if !error.connectionLost { _ = try? c.query("ROLLBACK") }
                throw error
            }
            let backend = c.backendPID
            do throws(PGError) {
                try c.query("COMMIT")
            } catch where error.connectionLost {
                // The COMMIT may or may not have happened: read the outcome back, never guess,
                // once the old session is over (it may still be committing).
                link.drop()
                if try readBack(batch, committedBy: backend) { return }
                throw error
            }
        }
    }

    /// Whether a batch whose COMMIT lost its connection is in the database,
    /// once the session that ran it has ended. The link that just broke may
    /// still refuse a connection or two, so the read-back is tried again
    /// (50 ms, doubling to 400 ms) for up to `timeoutMs` before the answer is
    /// "unknown" (the error thrown).
    private func readBack(_ batch: CommitBatch, committedBy backend: Int32) throws(PGError) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(link.timeoutMs)
        var wait = 50
        while true {
            do throws(PGError) {
                let fresh = try link.connection()
                try PostgresBatch.awaitEnd(of: backend, on: fresh, timeoutMs: link.timeoutMs)
                return try PostgresBatch.isCommitted(batch, on: fresh)
            } catch where error.connectionLost && ContinuousClock.now + .milliseconds(wait) < deadline {
                link.drop()
                usleep(UInt32(wait) * 1_000)
                wait = min(wait * 2, 400)
            }
        }
    }

    /// Often enough to let go of a kept lock soon after `maxHold`.
    public var idleEvery: Double? { 0.1 }

    /// A lock kept for a retry that has not come within `maxHold` is let go.
    public func idle() {
        guard let h = holding, ContinuousClock.now - h.since > Self.maxHold else { return }
        letGo()
    }

    /// Rolls back a transaction kept for a retry, before anything else uses the connection.
    private func letGo() {
        guard holding != nil else { return }
        if (try? link.using { c throws(PGError) in letGo(on: c) }) == nil { holding = nil }
    }

    /// The same, on the connection in hand: a transaction kept on another
    /// (lost) connection has nothing left to roll back.
    private func letGo(on c: PGConnection) {
        if holding?.on === c { _ = try? c.query("ROLLBACK") }
        holding = nil
    }

    /// Creates the board unless a board of that name exists (another node
    /// may have created it first); true when this call created it.
    public func createIfAbsent(_ board: StoredBoard) throws(StoreError) -> Bool {
        try using { c throws(PGError) in
            let r = try c.query("""
                INSERT INTO foldsync_boards(name, epoch, rev, state) VALUES($1, $2, $3, $4)
                ON CONFLICT(name) DO NOTHING RETURNING name
                """, [board.name, board.epoch, String(board.rev), String(decoding: board.encodedState, as: UTF8.self)])
            return r.rows == 1
        }
    }

    /// Ends the session (PostgreSQL has nothing to flush on our side).
    public func close() {
        letGo()
        link.drop()
    }

    public func probe() throws(StoreError) {
        letGo()
        try using { c throws(PGError) in
            try c.query("UPDATE foldsync_meta SET value = value WHERE key = 'schema'")
        }
    }
}
