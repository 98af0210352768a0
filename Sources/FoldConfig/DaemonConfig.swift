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
    public var coalesceMs = 4
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
    /// What is kept of each board's past.
    public var retention = Retention()
    /// What one client may hold and send.
    public var clients = ClientLimits()
    /// Who else may reach the daemon, and how.
    public var web = WebAccess()
    public var logLevel: LogLevel = .info
    /// Milliseconds a commit waits on a store lock before it counts as failed.
    public var storeBusyMs = 2_000
    /// Directory of the dashboard's static files; empty = look in the usual places.
    public var webRoot = ""
    /// Seconds a graceful shutdown may take before connections are dropped.
    public var shutdownTimeout = 10
    /// Seconds between heartbeat comments on an event stream.
    public var streamHeartbeat = 15
    /// Seconds a board nobody watches stays in memory after its last use.
    public var boardIdle = 60

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
