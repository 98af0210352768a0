import FoldCore

/// A WebSocket client as the hub sees it: an id and what it proved, no
/// transport object. Its subscriptions live in `Subscriptions`, its
/// deadlines in `Deadlines`.
final class Session {
    let id: UInt64
    /// `by` in patches, `session` in hello.
    let name: String
    /// Who this connection proved to be, when tokens or JWT keys are configured.
    var identity: Identity?
    /// A JWT's `exp` on the hub's clock; nil for a static token.
    var expiresAt: Instant?
    /// The rate limiter's bucket (see `Hub.takeToken`).
    var bucket: Double
    var bucketUpdated: Instant
    /// The peer address, counted against `max-connections-per-ip` when `countedPerIP`.
    let peerIP: String
    var countedPerIP = false
    /// False once the client said it browses on its own (`view`); counted in `presence`.
    var following = true
    /// The board of an event stream (`GET /api/boards/NAME/events`); nil for a WebSocket.
    var stream: String?
    /// The daemon ended this stream (counted then, by its cause); a stream
    /// that closes without it was ended by its reader.
    var streamEnded = false

    init(id: UInt64, peer: String, burst: Int, now: Instant) {
        self.id = id
        self.name = "c\(id)"
        self.bucket = Double(burst)
        self.bucketUpdated = now
        self.peerIP = peer
    }
}
