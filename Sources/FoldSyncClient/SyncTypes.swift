import FoldCore

/// Where the connection stands (docs/CLIENTS.md, "States").
public enum SyncState: Sendable, Equatable {
    case connecting
    /// The daemon's `hello` arrived (and the token, when there is one, was sent).
    case connected
    /// The connection was lost; the next attempt comes after `retryIn` seconds.
    case disconnected(reason: String, retryIn: Double)
    /// `close()` was called: nothing reconnects.
    case closed
}

/// One change to a board's mirror, as the application is told it.
public struct BoardChange: Sendable {
    public let rev: Int
    public let epoch: String
    /// The patch's operations; nil for a resync (the state is new as a whole).
    public let ops: JSON?
    /// The mirror after the change.
    public let state: JSON
    /// True when a snapshot replaced the mirror: `reason` says why
    /// (`epoch`, `pruned`, `lagging`).
    public let resynced: Bool
    public let reason: String?
}

/// An error as the protocol names it (`code`: `not_found`, `conflict`,
/// `forbidden`, ...), or the client's own `disconnected` and `closed`.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// A token as a value, or a function called before every connection and
/// again when the daemon says `authExpiring` (a JWT from a sign-in service).
public enum TokenSource: Sendable {
    case none
    case value(String)
    case provider(@Sendable () async throws -> String)
}
