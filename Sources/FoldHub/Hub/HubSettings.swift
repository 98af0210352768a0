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
    /// What is kept of each board's past.
    public var retention = Retention()
    /// What one client may hold and send.
    public var clients = ClientLimits()
    /// Who else may reach the daemon, and how.
    public var web = WebAccess()
    public var logLevel: LogLevel = .info
    /// The store as `systemctl status` shows it (never a password).
    public var storeName = ""
    /// Several daemons may write the boards: an answer read off this node's
    /// copy is confirmed against the store's head before it is given.
    public var storeIsShared = false
    /// Seconds a graceful shutdown may take before connections are dropped.
    public var shutdownTimeout = 10
    /// The daemon serves https:// and wss:// (its own origin's scheme).
    public var tls = false
    /// Seconds between heartbeat comments on event streams.
    public var streamHeartbeat = 15.0
    /// Seconds a board nobody watches stays in memory after its last use.
    public var boardIdle = 60.0

    public init() {}

    /// Neither static tokens nor JWT keys: everyone may do everything.
    public var isOpen: Bool { access.isAnonymous && jwt == nil }
}
