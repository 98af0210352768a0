/// Who besides the daemon's own pages may reach it, and how: other
/// origins' pages, tokens in the URL, /metrics without a token. One value,
/// read by the option table (FoldConfig) and the hub (`HubSettings`) alike.
public struct WebAccess: Sendable, Equatable {
    /// Origins (besides the daemon's own) whose pages may open WebSockets.
    public var allowOrigins: [String] = []
    /// Accepts `?token=` on the WebSocket URL.
    public var allowQueryToken = false
    /// Serves /metrics without a token.
    public var metricsPublic = false

    public init() {}
}
