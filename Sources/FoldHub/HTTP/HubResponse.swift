import FoldCore

/// An HTTP answer as the hub builds it: the transport writes the same value.
public typealias HubResponse = HTTPResponse

extension HTTPResponse {
    /// A JSON body (from `HTTPBody`) that no cache may keep.
    static func json(_ body: [UInt8], status: Int = 200) -> HubResponse {
        HubResponse(status: status, headers: [("cache-control", "no-store")], body: body)
    }

    /// The contract's error body, with the code's one HTTP status.
    public static func error(_ e: WireError) -> HubResponse {
        refusal(status: e.status ?? e.code.httpStatus, code: e.code.rawValue, e.message)
    }

    /// The same body for a status the contract's codes do not name (503
    /// `unavailable` for a refused upgrade, say).
    public static func refusal(status: Int, code: String, _ message: String) -> HubResponse {
        json(ErrorBody.encode(code: code, message: message), status: status)
    }

    public static func error(_ code: ErrorCode, _ message: String) -> HubResponse {
        error(WireError(code, message))
    }
}
