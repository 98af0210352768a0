import FoldCore

/// Who asked for a change, as the history names them.
struct Author {
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
