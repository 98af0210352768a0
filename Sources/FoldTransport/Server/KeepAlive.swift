/// When to PING a WebSocket peer and when to give up on it: the daemon's own
/// keep-alive, in place of lws' validity timers.
///
/// Why not lws': it (4.1.6 and 4.3.5) keeps one timer per connection in a sorted linked
/// list, and re-inserts it on every PING and every PONG by walking that list,
/// so each costs time in proportion to the connections open. At 19,000
/// viewers per daemon the inserts took 84% of the loop (perf), pongs waited
/// past the hang-up, and lws dropped thousands of healthy peers without a
/// close frame. Here one sweep a second looks at each connection once, and a
/// peer that went quiet is told why (1008) before it is dropped.
///
/// Anything heard from the peer counts, not only PONG: a client that is
/// talking is alive, and needs no PING.
public struct KeepAlive: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        case none
        case ping
        case hangUp
    }

    public let pingNs: UInt64
    public let hangUpNs: UInt64

    /// PING after `pingSeconds` of silence; hang up after `hangUpSeconds`
    /// (kept above `pingSeconds`, so the PING always has time to be answered).
    public init(pingSeconds: Int, hangUpSeconds: Int) {
        let ping = max(pingSeconds, 1)
        pingNs = UInt64(ping) * 1_000_000_000
        hangUpNs = UInt64(max(hangUpSeconds, ping + 1)) * 1_000_000_000
    }

    /// What to do with a peer last heard from at `lastHeardNs`, given when
    /// a PING went out since (`pingSentNs`, 0 for none). A peer is never
    /// dropped before a PING had `hangUpNs - pingNs` to be answered, however
    /// late the sweep that sends it runs.
    public func step(lastHeardNs: UInt64, pingSentNs: UInt64, now: UInt64) -> Step {
        let silent = now > lastHeardNs ? now - lastHeardNs : 0
        guard silent >= pingNs else { return .none }
        guard pingSentNs != 0 else { return .ping }
        let waited = now > pingSentNs ? now - pingSentNs : 0
        return silent >= hangUpNs && waited >= hangUpNs - pingNs ? .hangUp : .none
    }

    public var hangUpSeconds: Int { Int(hangUpNs / 1_000_000_000) }
}
