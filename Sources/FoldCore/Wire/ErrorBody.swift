/// The body of every HTTP refusal: `{"code": ..., "message": ...}`, as the
/// contract's HTTP API answers. One encoder for the hub's answers and for the
/// refusals the transport makes itself (a refused WebSocket upgrade, a body
/// too large), so a client parses them all the same way.
public enum ErrorBody {
    public static func encode(code: String, message: String) -> [UInt8] {
        JSON.object(JSONObject([("code", .string(code)), ("message", .string(message))])).encoded()
    }

    public static func encode(_ e: WireError) -> [UInt8] { encode(code: e.code.rawValue, message: e.message) }
}
