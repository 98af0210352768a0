/// A WebSocket close code (RFC 6455 §7.4): the ones the daemon and its
/// clients send or read, by name. Any other code a peer sends is kept as it
/// came (`CloseCode(rawValue:)`), so nothing is lost in a report.
///
/// In FoldCore because the codes are part of the wire contract (1008 after
/// the auth timeout, 1001 on shutdown) and both the hub, which decides
/// them, and the transport, which sends them, must name them the same way.
public struct CloseCode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt16) { self.init(rawValue: value) }

    /// Done: the peer said goodbye.
    public static let normal: CloseCode = 1000
    /// The server is shutting down (or the client is leaving).
    public static let goingAway: CloseCode = 1001
    /// A frame of a kind the endpoint does not accept (binary frames here).
    public static let unsupportedData: CloseCode = 1003
    /// No code in the close frame (never sent, only reported).
    public static let noStatus: CloseCode = 1005
    /// Text that is not UTF-8 (lws checks it before the daemon sees it).
    public static let invalidPayload: CloseCode = 1007
    /// A rule broken: no valid token in time, a client that never reads.
    public static let policyViolation: CloseCode = 1008
    /// A message over the size limit.
    public static let messageTooBig: CloseCode = 1009
    /// The endpoint met a condition it cannot handle.
    public static let internalError: CloseCode = 1011

    public var description: String { String(rawValue) }
}
