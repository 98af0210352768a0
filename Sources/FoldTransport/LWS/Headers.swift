import CLibWebSockets

/// Reading what lws parsed off a request. Service thread, inside a callback.
enum Headers {
    /// The headers the daemon looks at, by lower-case name.
    static let wanted: [(String, lws_token_indexes)] = [
        ("authorization", WSI_TOKEN_HTTP_AUTHORIZATION),
        ("origin", WSI_TOKEN_ORIGIN),
        ("host", WSI_TOKEN_HOST),
        ("if-none-match", WSI_TOKEN_HTTP_IF_NONE_MATCH),
        ("content-length", WSI_TOKEN_HTTP_CONTENT_LENGTH),
        ("content-type", WSI_TOKEN_HTTP_CONTENT_TYPE),
        ("sec-websocket-protocol", WSI_TOKEN_PROTOCOL),
    ]

    static func read(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let n = Int(lws_hdr_total_length(wsi, token))
        guard n > 0, n < 16 * 1024 else { return nil }
        var buf = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_copy(wsi, &buf, Int32(n + 1), token) >= 0 else { return nil }
        return cString(buf)
    }

    /// Headers lws has no token for, read by name (lws keeps them as "custom" headers).
    static let wantedByName = ["last-event-id", "idempotency-key"]

    static func all(_ wsi: OpaquePointer) -> [String: String] {
        var out: [String: String] = [:]
        for (name, token) in wanted {
            if let v = read(wsi, token) { out[name] = v }
        }
        for name in wantedByName {
            if let v = custom(wsi, name) { out[name] = v }
        }
        return out
    }

    /// A header by name, `name:` as lws stores it (any case on the wire).
    static func custom(_ wsi: OpaquePointer, _ name: String) -> String? {
        let key = name + ":"
        let n = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
        guard n > 0, n < 1024 else { return nil }
        var buf = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_custom_copy(wsi, &buf, Int32(n + 1), key, Int32(key.utf8.count)) >= 0 else { return nil }
        return cString(buf)
    }

    /// The query string: lws keeps each `&`-separated argument as a fragment.
    static func query(_ wsi: OpaquePointer) -> String {
        var parts: [String] = []
        var i: Int32 = 0
        var buf = [CChar](repeating: 0, count: 4096)
        while i < 64 {
            let n = lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, i)
            if n < 0 { break }
            parts.append(cString(buf))
            i += 1
        }
        return parts.joined(separator: "&")
    }

    static func peer(_ wsi: OpaquePointer) -> String {
        var buf = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "?" }
        return cString(buf)
    }
}

/// Text up to the first NUL of a C buffer.
func cString(_ buf: [CChar]) -> String {
    let end = buf.firstIndex(of: 0) ?? buf.count
    return String(decoding: buf[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
