import FoldCore

/// Who asked for a change, as the history names them.
struct Actor {
    /// The token's name, or `anonymous` when no tokens are configured.
    var name: String
    /// The WebSocket session (`c12`), or `http`.
    var session: String
    /// The token proved, for a revert's second permission check.
    var token: AccessToken?

    init(token: AccessToken?, session: String) {
        self.name = token?.name ?? "anonymous"
        self.session = session
        self.token = token
    }
}

/// A history read the committer thread is doing for the hub, and who waits for it.
enum PendingRead {
    case http(exchange: UInt64, board: String, query: HistoryQuery)
    case revert(request: ActionRequest, rev: Int, reply: Reply, by: String?, actor: Actor)
}

/// A read of a board's history, done off the event loop (by the committer,
/// after the commits handed to it before); answered with `HubInput.historyRead`.
public struct HistoryRead: Sendable {
    public var id: UInt64
    public var board: String
    public var query: HistoryQuery
}
