import FoldCore

/// Connections the transport dropped by itself, by cause.
public struct TransportCounters: Sendable {
    /// Accepted, then gone before a complete request (timeouts, slowloris, scanners).
    public var incompleteHandshakes = 0
    /// WebSocket connections that ended, by cause; each counted once.
    public var closes: [CloseCause: Int] = [:]
    /// Upgrades answered 503 because the descriptor table was nearly full.
    public var refusedAtDescriptorLimit = 0
    /// Sockets lws accepted past its descriptor table and closed unanswered (`LWSLog`).
    public var refusedPastDescriptorTable = 0
}
