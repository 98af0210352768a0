/// Connections the transport dropped by itself, by cause.
public struct TransportCounters: Sendable {
    /// Closed with 1009: a message over `maxMessageBytes`.
    public var closedTooLarge = 0
    /// Closed with 1003: a binary frame.
    public var closedBinary = 0
    /// Accepted, then gone before a complete request (timeouts, slowloris, scanners).
    public var incompleteHandshakes = 0
}
