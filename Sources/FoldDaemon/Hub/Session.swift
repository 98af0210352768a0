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

    init(connection: Connection) {
        self.connection = connection
        self.name = "c\(connection.id)"
    }
}
