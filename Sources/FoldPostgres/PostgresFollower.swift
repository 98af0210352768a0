import CLibPQ
import FoldCore
import Glibc

/// Reads what other daemons committed to the shared database: `LISTEN` is
/// only a wake-up (a notification can be lost or coalesced), the tables are
/// the truth, so every wake-up compares each board's row with the position
/// last reported and reads the log rows in between, in rev order.
///
/// Synchronous and single-threaded: one caller thread (the daemon's
/// follower thread) owns it and its connection.
public final class PostgresFollower {
    /// One thing to tell the hub.
    public typealias Update = StoreUpdate

    /// The channel every commit notifies (PostgresBatch).
    static let channel = "foldsync"

    private let link: PGLink
    /// Every board's row as the last scan read it (for the catch-up lag).
    public private(set) var heads: [String: (epoch: String, rev: Int)] = [:]
    /// A presence NOTIFY arrived since `takePresenceHeard()` last asked.
    private var presenceHeard = false
    /// The last position reported per board (what the hub has been told).
    private var seen: [String: (epoch: String, rev: Int)]

    /// `positions`: where the hub's boards stand at start.
    public init(uri: String, timeoutMs: Int, positions: [String: (epoch: String, rev: Int)]) {
        self.link = PGLink(uri: uri, timeoutMs: timeoutMs) { c throws(PGError) in try c.query("LISTEN \(Self.channel)") }
        self.seen = positions
    }

    /// Connections made again after one broke (any thread).
    public var reconnects: Int { link.reconnects }

    /// Waits up to `waitMs` for a notification, then reports every board that moved.
    public func next(waitMs: Int32) throws(StoreError) -> [Update] {
        try using { c throws(PGError) in
            // A notification that came during the last scan's queries is already
            // in libpq's queue, not on the socket: polling first would sleep on it.
            if !takeNotifications(c) {
                var p = pollfd(fd: PQsocket(c.handle), events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, waitMs) > 0 {
                    guard PQconsumeInput(c.handle) == 1 else {
                        throw PGError(message: PGConnection.trimmed(PQerrorMessage(c.handle)), connectionLost: true)
                    }
                    _ = takeNotifications(c)
                }
            }
            return try scan(c)
        }
    }

    /// Empties libpq's queue of notifications; true when there was one.
    private func takeNotifications(_ c: PGConnection) -> Bool {
        var any = false
        while let n = PQnotifies(c.handle) {
            any = true
            if let extra = n.pointee.extra, String(cString: extra) == PostgresPresence.payload { presenceHeard = true }
            fs_pq_free_notify(n)
        }
        return any
    }

    /// True once after another node announced a changed viewer count.
    public func takePresenceHeard() -> Bool {
        defer { presenceHeard = false }
        return presenceHeard
    }

    func using<T>(_ body: (PGConnection) throws(PGError) -> T) throws(StoreError) -> T { try link.using(body) }

    /// The board as it stands after `after` (at `epoch`), whatever was reported before.
    public func catchUp(board: String, epoch: String, after: Int) throws(StoreError) -> [Update] {
        try using { c throws(PGError) in
            let r = try c.query("SELECT epoch, rev FROM foldsync_boards WHERE name = $1", [board])
            guard r.rows == 1, let e = r.text(0, 0), let rev = r.int(0, 1) else {
                seen[board] = nil
                return [.deleted(board: board)]
            }
            seen[board] = (epoch, after)
            return try moved(board, to: (e, rev), on: c)
        }
    }

    private func scan(_ c: PGConnection) throws(PGError) -> [Update] {
        let r = try c.query("SELECT name, epoch, rev FROM foldsync_boards ORDER BY name")
        var out: [Update] = []
        var present: Set<String> = []
        heads = [:]
        for i in 0..<r.rows {
            guard let name = r.text(i, 0), let epoch = r.text(i, 1), let rev = r.int(i, 2) else { continue }
            present.insert(name)
            heads[name] = (epoch, rev)
            if let s = seen[name], s.epoch == epoch, s.rev >= rev { continue }
            out += try moved(name, to: (epoch, rev), on: c)
        }
        for name in seen.keys.sorted() where !present.contains(name) {
            seen[name] = nil
            out.append(.deleted(board: name))
        }
        return out
    }

    /// The log rows between the position reported and `to`, or the whole board.
    private func moved(_ name: String, to head: (epoch: String, rev: Int), on c: PGConnection) throws(PGError) -> [Update] {
        let u = try Self.read(name, after: seen[name], to: head, on: c)
        switch u {
        case .changes: seen[name] = head
        case .board(let b): seen[name] = (b.epoch, b.rev)
        case .deleted: seen[name] = nil
        }
        return [u]
    }

    /// A board from `position` to `head`: the log rows in between when they
    /// are all there, else the board row (or its absence).
    ///
    /// A position at the head is no change: the board row, read by a later
    /// statement, may already hold a commit made since `head` was read, and
    /// would reach subscribers as a snapshot where the log has the patch.
    static func read(_ name: String, after position: (epoch: String, rev: Int)?, to head: (epoch: String, rev: Int),
                     on c: PGConnection) throws(PGError) -> Update {
        if let s = position, s.epoch == head.epoch, s.rev == head.rev { return .changes(board: name, epoch: head.epoch, []) }
        if let s = position, s.epoch == head.epoch, s.rev < head.rev {
            let r = try c.query("""
                SELECT rev, ops FROM foldsync_changes WHERE board = $1 AND epoch = $2 AND rev > $3 AND rev <= $4 ORDER BY rev
                """, [name, head.epoch, String(s.rev), String(head.rev)])
            if r.rows == head.rev - s.rev {
                var changes = (0..<r.rows).map { StoredChange(board: name, rev: r.int($0, 0) ?? 0, ops: r.bytes($0, 1)) }
                // The keys of those changes (and of no-ops answered at their revs): a repeat sent to this node is then known.
                let k = try c.query("SELECT key, rev, fingerprint FROM foldsync_keys WHERE board = $1 AND rev > $2 AND rev <= $3",
                                    [name, String(s.rev), String(head.rev)])
                for i in 0..<k.rows {
                    guard let rev = k.int(i, 1), let key = k.text(i, 0), rev > s.rev, rev - s.rev - 1 < changes.count else { continue }
                    changes[rev - s.rev - 1].keys.append(StoredKey(board: name, key: key, rev: rev, fingerprint: Int64(k.int(i, 2) ?? 0)))
                }
                return .changes(board: name, epoch: head.epoch, changes)
            }
        }
        let r = try c.query("SELECT epoch, rev, state FROM foldsync_boards WHERE name = $1", [name])
        guard r.rows == 1, let epoch = r.text(0, 0), let rev = r.int(0, 1) else { return .deleted(board: name) }
        return .board(StoredBoard(name: name, epoch: epoch, rev: rev, state: r.bytes(0, 2)))
    }
}
