/// The bounds on what one client, or one address, may hold or send: its
/// queue, its stall, its token's deadline, connections, message rate and
/// subscriptions. One value, read by the option table (FoldConfig) and the
/// hub (`HubSettings`) alike.
public struct ClientLimits: Sendable, Equatable {
    /// How much a connection's queue may hold before fan-out resynchronises it.
    public var maxQueueFrames = 1_024
    public var maxQueueBytes = 8 * 1024 * 1024
    /// Seconds a resynchronised connection may stay stalled before it is closed (1008).
    public var slowClientSeconds = 10
    /// Seconds a WebSocket client has to present a token before it is closed (1008).
    public var authTimeout = 10
    public var maxConnections = 100_000
    /// Per peer address; loopback peers are not counted unless `perIPCountsLoopback`.
    public var maxConnectionsPerIP = 1_000
    public var perIPCountsLoopback = false
    /// Sustained messages per second per connection (a token bucket), and how many may come at once.
    public var maxActionsPerSecond = 100
    public var actionBurst = 200
    public var maxSubscriptions = 100

    public init() {}
}
