import FoldCore

/// The values the hub decides with: who may do what, the limits on what a
/// client controls, how much history is kept, and its deadlines. The daemon
/// derives them from its configuration at start and on each reload (the
/// option table and which options apply live are FoldConfig's); the hub
/// knows nothing of flags, files or the transport.
public struct HubSettings: Sendable, Equatable {
    /// Configured tokens; none means everyone may do everything.
    public var access = AccessPolicy()
    /// JWT sign-in beside the static tokens; nil when no `jwt-key` is configured.
    public var jwt: JWTSettings?
    public var limits = Limits()
    public var logLevel: LogLevel = .info
    /// The store as `systemctl status` shows it (never a password).
    public var storeName = ""
    /// Several daemons may write the boards: an answer read off this node's
    /// copy is confirmed against the store's head before it is given.
    public var storeIsShared = false
    /// Changes kept per board for resuming subscribers, and at least this
    /// many in the history whatever their age.
    public var historyPerBoard = 1_000
    /// Days a change stays in the history (fractions allowed; 0: only the last `historyPerBoard`).
    public var historyDays = 30.0
    /// Hours an action's key is kept at least (and while its rev is among the last `historyPerBoard`).
    public var actionKeyHours = 24
    /// Keys kept per board at most: the bound on what clients' keys cost.
    public var actionKeysPerBoard = 10_000
    /// How much a connection's queue may hold before fan-out resynchronises it.
    public var maxQueueFrames = 1_024
    public var maxQueueBytes = 8 * 1024 * 1024
    /// Seconds a resynchronised connection may stay stalled before it is closed (1008).
    public var slowClientSeconds = 10
    /// Seconds a graceful shutdown may take before connections are dropped.
    public var shutdownTimeout = 10
    /// The daemon serves https:// and wss:// (its own origin's scheme).
    public var tls = false
    /// Origins (besides the daemon's own) whose pages may open WebSockets.
    public var allowOrigins: [String] = []
    /// Accepts `?token=` on the WebSocket URL.
    public var allowQueryToken = false
    /// Serves /metrics without a token.
    public var metricsPublic = false
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
    /// Seconds between heartbeat comments on event streams.
    public var streamHeartbeat = 15.0

    public init() {}

    /// Neither static tokens nor JWT keys: everyone may do everything.
    public var isOpen: Bool { access.isAnonymous && jwt == nil }

    /// `historyDays` in milliseconds.
    public var historyKeepMs: Int { Int(historyDays * 86_400_000) }
    /// `historyDays` as written: `30`, `0.5`.
    public var historyDaysText: String {
        historyDays == historyDays.rounded() ? String(Int(historyDays)) : String(historyDays)
    }
}
