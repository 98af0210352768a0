/// An HTTP answer: status, headers and the whole body. The hub builds it
/// (`HubResponse`), the transport writes it (`WebServer.respond`): one type, no copy between them.
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
