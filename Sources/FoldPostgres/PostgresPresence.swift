import CLibPQ
import FoldCore

/// Presence across daemons: each node keeps one row per board it has
/// viewers on, renewed by a heartbeat and dated by the database's clock (so
/// the nodes' clocks do not matter). A node that dies stops renewing and
/// falls out of every count when its rows expire.
///
/// Its own table, apart from the boards and the log, created at start
/// whatever the schema version (a heartbeat row is nothing to migrate).
enum PostgresPresence {
    static let create = """
        CREATE TABLE IF NOT EXISTS foldsync_presence(
            node text NOT NULL, board text NOT NULL, viewers integer NOT NULL, following integer NOT NULL,
            expires timestamptz NOT NULL,
            PRIMARY KEY(node, board))
        """

    /// The payload of a presence NOTIFY (a commit's has none).
    static let payload = "presence"
}

extension PostgresFollower {
    /// Writes this node's counts and renews its rows for `ttlSeconds`; a
    /// board at 0 loses its row. `announce` wakes the other nodes at once
    /// (a count changed); a plain renewal does not.
    public func beat(node: String, counts: [String: (viewers: Int, following: Int)], ttlSeconds: Int, announce: Bool) throws(StoreError) {
        try using { c throws(PGError) in
            let json = JSON.object(JSONObject(counts.sorted { $0.key < $1.key }.map {
                ($0.key, JSON.array([.int($0.value.viewers), .int($0.value.following)]))
            }))
            try c.query("""
                INSERT INTO foldsync_presence(node, board, viewers, following, expires)
                SELECT $1, key, (value->>0)::integer, (value->>1)::integer, now() + make_interval(secs => $3::integer)
                FROM json_each($2::json)
                ON CONFLICT(node, board) DO UPDATE
                SET viewers = EXCLUDED.viewers, following = EXCLUDED.following, expires = EXCLUDED.expires
                """, [node, String(decoding: json.encoded(), as: UTF8.self), String(ttlSeconds)])
            try c.query("UPDATE foldsync_presence SET expires = now() + make_interval(secs => $2::integer) WHERE node = $1",
                        [node, String(ttlSeconds)])
            // Zeros, and whatever dead nodes left a while ago.
            try c.query("DELETE FROM foldsync_presence WHERE (node = $1 AND viewers = 0) OR expires < now() - interval '1 minute'", [node])
            if announce { try c.query("NOTIFY \(Self.channel), '\(PostgresPresence.payload)'") }
        }
    }

    /// Viewers (and how many follow) per board on every other node whose rows have not expired.
    public func presence(excluding node: String) throws(StoreError) -> [String: (viewers: Int, following: Int)] {
        try using { c throws(PGError) in
            let r = try c.query("""
                SELECT board, sum(viewers), sum(following) FROM foldsync_presence
                WHERE node <> $1 AND expires > now() GROUP BY board
                """, [node])
            var out: [String: (viewers: Int, following: Int)] = [:]
            for i in 0..<r.rows {
                if let b = r.text(i, 0), let n = r.int(i, 1), n > 0 { out[b] = (n, r.int(i, 2) ?? 0) }
            }
            return out
        }
    }

    /// A clean stop: this node's rows go at once, not at expiry.
    public func leave(node: String) throws(StoreError) {
        try using { c throws(PGError) in
            try c.query("DELETE FROM foldsync_presence WHERE node = $1", [node])
            try c.query("NOTIFY \(Self.channel), '\(PostgresPresence.payload)'")
        }
    }
}
