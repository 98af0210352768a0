import FoldCore

/// A WebSocket client as the hub sees it: an id and what it proved, no
/// transport object. Its subscriptions live in `Subscriptions`, its
/// deadlines in `Deadlines`.
final class Session {
    let id: UInt64
    /// `by` in patches, `session` in hello.
    let name: String
    /// The token this connection proved, when tokens are configured.
    var token: AccessToken?
    /// The rate limiter's bucket (see `Hub.takeToken`).
    var bucket: Double
    var bucketUpdated: Instant
    /// The peer address, counted against `max-connections-per-ip` when `countedPerIP`.
    let peerIP: String
    var countedPerIP = false
    /// False once the client said it browses on its own (`view`); counted in `presence`.
    var following = true

    init(id: UInt64, peer: String, burst: Int, now: Instant) {
        self.id = id
        self.name = "c\(id)"
        self.bucket = Double(burst)
        self.bucketUpdated = now
        self.peerIP = peer
    }
}
