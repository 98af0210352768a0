import FoldCore

/// Who asked for a change, as the history names them.
struct Author {
    /// The token's name or the JWT's `sub`, or `anonymous` when no tokens are configured.
    var name: String
    /// The WebSocket session (`c12`), or `http`.
    var session: String
    /// Who proved what, for a revert's second permission check.
    var identity: Identity?

    init(identity: Identity?, session: String) {
        self.name = identity?.name ?? "anonymous"
        self.session = session
        self.identity = identity
    }
}
