import FoldCore
import FoldTransport

/// Building HTTP answers: JSON bodies, and the contract's error body.
enum HTTPReplies {
    static func json(_ value: JSON, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("cache-control", "no-store")], body: value.encoded())
    }

    static func error(_ e: WireError) -> HTTPResponse {
        json(.object(JSONObject([("code", .string(e.code.rawValue)), ("message", .string(e.message))])),
             status: e.code.httpStatus)
    }

    static func error(_ code: ErrorCode, _ message: String) -> HTTPResponse {
        error(WireError(code, message))
    }
}
