/// An HTTP request as the daemon sees it, whole (the body is collected first).
public struct HTTPRequest: Sendable {
    /// Identifies the exchange for `WebServer.respond`; valid until answered or the peer goes.
    public let id: UInt64
    public let method: String
    public let path: String
    /// The query string without `?`, empty when none.
    public let query: String
    /// Lower-cased names of the headers the daemon looks at.
    public let headers: [String: String]
    public let body: [UInt8]
    public let peer: String
}
