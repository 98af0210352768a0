/// Why a WebSocket connection ended, as `/metrics` counts it
/// (`foldsync_connections_closed_total{reason}`): each close is counted once,
/// under one of these, so the reasons add up to the connections opened
/// minus those still open.
///
/// The daemon's own closes name their cause when they are decided (the hub's
/// or the transport's); the rest are read off the connection at its end.
public enum CloseCause: String, Sendable, CaseIterable {
    /// 1001: the daemon is shutting down.
    case shutdown
    /// 1008: no valid token within `auth-timeout`.
    case authTimeout = "auth-timeout"
    /// 1008: a JWT's `exp` (plus the leeway) passed without a fresh token.
    case tokenExpired = "token-expired"
    /// 1008: a fresh token named another subject.
    case tokenRefused = "token-refused"
    /// 1008: the peer stopped answering pings (nothing heard for twice `ping-interval`).
    case pingTimeout = "ping-timeout"
    /// 1008: a connection that stopped reading, and stayed stalled after its resync.
    case slowClient = "slow-client"
    /// 1009: a message over `max-message-bytes`.
    case messageTooLarge = "message-too-large"
    /// 1003: a binary frame.
    case binaryFrame = "binary-frame"
    /// 1011: the daemon lost track of the connection (its own failure).
    case internalError = "internal-error"
    /// The peer sent a close frame (lws answered it).
    case peerClosed = "peer-closed"
    /// The peer went without a close frame: end of stream or a reset, seen
    /// on the socket, or a write the socket refused. Nothing can be sent then.
    case peerGone = "peer-gone"
    /// libwebsockets ended it while the peer was still there (a protocol
    /// error it answers itself, such as text that is not UTF-8, or one of
    /// its own timeouts).
    case transport
}
