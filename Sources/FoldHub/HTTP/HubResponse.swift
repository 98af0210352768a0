import FoldCore

/// An HTTP answer as the hub builds it; the driver hands it to the transport.
public struct HubResponse: Sendable {
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

    /// A JSON body (from `HTTPBody`) that no cache may keep.
    static func json(_ body: [UInt8], status: Int = 200) -> HubResponse {
        HubResponse(status: status, headers: [("cache-control", "no-store")], body: body)
    }

    /// The contract's error body, with the code's one HTTP status.
    public static func error(_ e: WireError) -> HubResponse {
        json(HTTPBody.error(e), status: e.code.httpStatus)
    }

    public static func error(_ code: ErrorCode, _ message: String) -> HubResponse {
        error(WireError(code, message))
    }
}
