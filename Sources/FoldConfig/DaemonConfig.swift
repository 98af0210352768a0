import FoldCore

/// Everything the daemon can be told, with its defaults, as plain values.
/// Parsed once, at the edge (`OptionTable`), from the file, the environment
/// and flags; the daemon hands each owner its part: the hub its
/// `HubSettings`, FoldTransport its `TransportConfig`.
public struct DaemonConfig: Sendable, Equatable {
    // Where and how to listen (handed to the transport).
    /// Interface to bind: an IP literal. Loopback by default.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one.
    public var port = 7681
    /// `libev`, `libuv` or `poll` (the transport's `EventLoop` raw values).
    public var eventLoop = "libev"
    /// Largest WebSocket message accepted; larger ones close with 1009.
    public var maxMessageBytes = 64 * 1024
    /// Largest HTTP request body; larger ones get 413.
    public var maxBodyBytes = 8 * 1024 * 1024
    /// Seconds of silence before a PING; twice that without PONG drops the peer.
    public var pingSeconds = 30
    /// Milliseconds a busy batching connection's writes gather; 0 writes at once.
    public var coalesceMs = 20
    /// Seconds a client has to finish its request or handshake.
    public var handshakeTimeout = 10
    /// PEM certificate and key: with both, the port serves https:// and wss://.
    public var tlsCert = ""
    public var tlsKey = ""

    /// SQLite file holding boards and their recent changes.
    public var db = "./foldsync.db"
    /// A `postgresql://` URI: the boards live in PostgreSQL (shared by several
    /// daemons) and `db` is not used. Empty: the SQLite file at `db`.
    public var store = ""
    /// Several daemons may write the boards: an answer read off this node's
    /// copy is confirmed against the store's head before it is given.
    public var storeIsShared: Bool { StoreURI.isPostgres(store) }
    /// The store as logs and `systemctl status` show it: never a password.
    public var storeName: String { store.isEmpty ? db : StoreURI.redacted(store) }
    public var limits = Limits()
    public var logLevel: LogLevel = .info
    /// Changes kept per board for resuming subscribers (also across restarts),
    /// and at least this many in the history whatever their age.
    public var historyPerBoard = 1_000
    /// Days a change stays in the history (fractions allowed; 0: only the last `historyPerBoard`).
    public var historyDays = 30.0
    /// Hours an action's key is kept at least (and while its rev is among the last `historyPerBoard`).
    public var actionKeyHours = 24
    /// Keys kept per board at most: the bound on what clients' keys cost.
    public var actionKeysPerBoard = 10_000
    /// Frames a connection may have queued before it is resynchronised with a snapshot.
    public var maxQueueFrames = 1_024
    /// Bytes a connection may have queued before it is resynchronised with a snapshot.
    public var maxQueueBytes = 8 * 1024 * 1024
    /// Seconds a resynchronised connection may stay stalled before it is closed (1008).
    public var slowClientSeconds = 10
    /// Milliseconds a commit waits on a store lock before it counts as failed.
    public var storeBusyMs = 2_000
    /// Directory of the dashboard's static files; empty = look in the usual places.
    public var webRoot = ""
    /// Seconds a graceful shutdown may take before connections are dropped.
    public var shutdownTimeout = 10
    /// Seconds between heartbeat comments on an event stream.
    public var streamHeartbeat = 15

    // Who may do what (docs/SECURITY.md).
    /// Configured tokens; none means everyone may do everything.
    public var access = AccessPolicy()
    /// Keys JWTs are verified with (`jwt-key`, repeatable); none: no JWT sign-in.
    public var jwtKeys: [JWTKeySpec] = []
    /// When set, a JWT's `iss` must be this ...
    public var jwtIssuer = ""
    /// ... and its `aud` must hold this.
    public var jwtAudience = ""
    /// Seconds of clock skew allowed on `exp`, `nbf` and `iat`.
    public var jwtLeeway = 30
    /// Seconds before `exp` when a connection is told `authExpiring`.
    public var jwtRefreshBefore = 60
    /// Allows listening beyond loopback without tokens.
    public var allowAnonymous = false
    /// Origins (besides the daemon's own) whose pages may open WebSockets.
    public var allowOrigins: [String] = []
    /// Accepts `?token=` on the WebSocket URL (it ends up in logs and history).
    public var allowQueryToken = false
    /// Serves /metrics without a token.
    public var metricsPublic = false
    /// Seconds a WebSocket client has to present a token before it is closed (1008).
    public var authTimeout = 10
    public var maxConnections = 100_000
    /// Per peer address; loopback peers are not counted (a local proxy is one address) ...
    public var maxConnectionsPerIP = 1_000
    /// ... unless this says so.
    public var perIPCountsLoopback = false
    /// Sustained messages per second per connection (a token bucket) ...
    public var maxActionsPerSecond = 100
    /// ... and how many may come at once.
    public var actionBurst = 200
    public var maxSubscriptions = 100

    public init(environment: [String: String] = [:]) {
        if let dir = environment["STATE_DIRECTORY"], !dir.isEmpty {
            // systemd may pass several, colon-separated: the first is ours.
            let first = dir.split(separator: ":").first.map(String.init) ?? dir
            db = first + "/foldsync.db"
        }
    }

    public var tls: Bool { !tlsCert.isEmpty && !tlsKey.isEmpty }

    public var listen: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(h):\(port)"
    }
}
