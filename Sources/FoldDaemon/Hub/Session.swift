import FoldCore
import FoldTransport

/// A WebSocket client as the hub sees it. Service thread only.
final class Session {
    let connection: Connection
    /// `by` in patches, `session` in hello.
    let name: String
    var subscriptions: Set<String> = []
    /// Set when the session was resynchronised because it did not read;
    /// cleared when its queue drains. Past the timeout it is closed.
    var stalledSinceNs: UInt64?
    /// The token this connection proved, when tokens are configured.
    var token: AccessToken?
    /// Set while the session must still authenticate.
    var authDeadlineNs: UInt64?
    /// The rate limiter's bucket (see `Hub.takeToken`).
    var bucket: Double
    var bucketUpdatedNs: UInt64
    /// The peer address, counted against `max-connections-per-ip` when `countedPerIP`.
    let peerIP: String
    var countedPerIP = false

    init(connection: Connection, burst: Int, now: UInt64) {
        self.connection = connection
        self.name = "c\(connection.id)"
        self.bucket = Double(burst)
        self.bucketUpdatedNs = now
        self.peerIP = connection.peer
    }
}
