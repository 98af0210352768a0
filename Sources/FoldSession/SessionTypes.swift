import FoldCore

/// Where the connection stands (docs/CLIENTS.md, "States").
public enum SyncState: Sendable, Equatable {
    case connecting
    /// The daemon's `hello` arrived (and the token, when there is one, was sent).
    case connected
    /// The connection was lost; the next attempt comes after `retryIn` seconds.
    case disconnected(reason: String, retryIn: Double)
    /// `suspend()` was called (the application went to the background):
    /// no connection until `resume()`; the outbox is kept.
    case suspended
    /// `close()` was called: nothing reconnects.
    case closed
}

/// One change to what a board shows, as the application is told it: a
/// change of the daemon's (a patch or a resync), or a local one (an action
/// called shows at once; a refused one is rolled back).
public struct BoardChange: Sendable {
    /// The confirmed rev (the daemon's).
    public let rev: Int
    public let epoch: String
    /// The daemon's patch operations; they apply to the previous
    /// `confirmed`, not to `state`. Nil for a resync and a local change.
    public let ops: JSON?
    /// The board to show: `confirmed` with the pending actions applied.
    public let state: JSON
    /// True when a snapshot replaced the mirror: `reason` says why
    /// (`epoch`, `pruned`, `lagging`).
    public let resynced: Bool
    public let reason: String?
    /// The daemon's board at `rev` (equal to `GET` then).
    public let confirmed: JSON
    /// True for a change of the pending actions, not of the daemon's board.
    public let local: Bool
    /// The action this change took back, and why.
    public let rolledBack: RolledBack?

    public init(rev: Int, epoch: String, ops: JSON?, state: JSON, resynced: Bool, reason: String?,
         confirmed: JSON, local: Bool = false, rolledBack: RolledBack? = nil) {
        self.rev = rev
        self.epoch = epoch
        self.ops = ops
        self.state = state
        self.resynced = resynced
        self.reason = reason
        self.confirmed = confirmed
        self.local = local
        self.rolledBack = rolledBack
    }
}

/// An action the daemon refused, or that expired or was cancelled in the
/// outbox: no longer shown, and never applied.
public struct RolledBack: Sendable {
    public let key: String
    public let action: Action
    public let error: SyncError
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

    /// What the session machine needs to know of it.
    public var mode: SessionMachine.Token {
        switch self {
        case .none: return .none
        case .value(let t): return .value(t)
        case .provider: return .provider
        }
    }
}
