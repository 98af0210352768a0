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

public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, contentType: String = "application/json", headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }
}
