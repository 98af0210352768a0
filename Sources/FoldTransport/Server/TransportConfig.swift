/// Which event loop lws drives. libev is the default: on poll() every idle
/// connection costs every turn, so thousands of quiet viewers slow the busy ones.
public enum EventLoop: String, Sendable, CaseIterable {
    case poll, libev, libuv
}

/// Everything the transport needs to listen; the daemon fills it from its configuration.
public struct TransportConfig: Sendable {
    /// Interface to bind: an IP literal. Loopback by default.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one (read it back from `WebServer.port`).
    public var port = 7681
    public var eventLoop: EventLoop = .libev
    /// Largest WebSocket message accepted; larger ones close the connection with 1009.
    public var maxMessageBytes = 64 * 1024
    /// Largest HTTP request body; larger ones get 413.
    public var maxBodyBytes = 8 * 1024 * 1024
    /// Seconds of silence before a PING, and before a peer that never answers is dropped.
    public var pingSeconds = 30
    public var hangupSeconds = 60
    /// Milliseconds a busy connection's next write waits after the
    /// last, so messages gather (see `WritePacer`); 0 writes at once.
    public var coalesceMs = 4
    /// Seconds a client has to finish its request or handshake before it is dropped.
    public var handshakeTimeout = 10
    /// Largest coalesced write for connections that negotiated batching.
    public var maxBatchBytes = 256 * 1024
    /// Name sent in the `server` HTTP header.
    public var serverName = "foldsyncd"
    /// Descriptors kept free below the process limit, so accept() stops
    /// cleanly at the limit instead of spinning on EMFILE.
    public var fdReserve = 64
    /// PEM certificate and key: when both are set the port serves https:// and wss://.
    public var tlsCert = ""
    public var tlsKey = ""
    /// Other origins whose pages may read HTTP answers (`allow-origin`):
    /// a request whose `Origin` is one of them gets it back in
    /// `access-control-allow-origin` (CORS), on every answer and stream.
    public var corsOrigins: [String] = []

    public var tls: Bool { !tlsCert.isEmpty && !tlsKey.isEmpty }

    public init() {}
}

/// The WebSocket subprotocols the daemon answers to. A client that offers
/// none is bound to the plain one.
public enum Subprotocol {
    public static let plain = "foldsync.v1"
    public static let batch = "foldsync.v1.batch"
}
