import CLibWebSockets
import FoldCore

extension WebServer {
    static let methods: [Int: String] = [
        Int(LWSHUMETH_GET): "GET", Int(LWSHUMETH_POST): "POST", Int(LWSHUMETH_OPTIONS): "OPTIONS",
        Int(LWSHUMETH_PUT): "PUT", Int(LWSHUMETH_PATCH): "PATCH", Int(LWSHUMETH_DELETE): "DELETE",
        Int(LWSHUMETH_HEAD): "HEAD",
    ]

    func httpBegin(_ wsi: OpaquePointer, _ pss: UnsafeMutablePointer<fs_pss_t>) -> CallbackResult {
        var uriPtr: UnsafeMutablePointer<CChar>?
        var uriLen: Int32 = 0
        let m = Int(lws_http_get_uri_and_method(wsi, &uriPtr, &uriLen))
        let path = uriPtr.map { p in
            String(decoding: UnsafeRawBufferPointer(start: p, count: Int(uriLen)), as: UTF8.self)
        } ?? "/"
        let id = allocateID()
        pss.pointee.id = id
        let headers = Headers.all(wsi)
        let state = HTTPState(
            id: id, wsi: wsi, method: Self.methods[m] ?? "UNKNOWN", path: path,
            query: Headers.query(wsi), headers: headers, peer: Headers.peer(wsi))
        exchanges[id] = state
        let declared = headers["content-length"].flatMap { Int($0) } ?? 0
        if declared > config.maxBodyBytes {
            state.closeAfter = true
            respond(id, Self.errorResponse(413, "too_large", "body over \(config.maxBodyBytes) bytes"))
            return .proceed
        }
        if declared > 0 && ["POST", "PUT", "PATCH"].contains(state.method) {
            state.body.reserveCapacity(declared)
            return .proceed  // the body arrives in HTTP_BODY callbacks
        }
        delegate?.request(state.request)
        // Called back once this callback has returned: see `httpWrite`.
        if state.response == nil { lws_callback_on_writable(wsi) }
        return .proceed
    }

    /// The request is whole and with the hub: how long its answer takes is
    /// the daemon's own affair (a history read may wait behind others), not
    /// the client's. lws arms PENDING_TIMEOUT_HTTP_CONTENT when it hands a
    /// request over (after LWS_CALLBACK_HTTP returns) with the context's
    /// `timeout_secs`, and it would end any answer slower than that.
    func handedOver(_ s: HTTPState) {
        lws_set_timeout(s.wsi, NO_PENDING_TIMEOUT, 0)
    }

    func httpBody(_ s: HTTPState, _ input: UnsafeMutableRawPointer?, _ len: Int) -> CallbackResult {
        if s.response != nil { return .proceed }
        if s.body.count + len > config.maxBodyBytes {
            s.closeAfter = true
            respond(s.id, Self.errorResponse(413, "too_large", "body over \(config.maxBodyBytes) bytes"))
            return .proceed
        }
        if let input, len > 0 { s.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len)) }
        return .proceed
    }

    /// Headers in one callback, then the body in chunks, one write per callback.
    func httpWrite(_ s: HTTPState) -> CallbackResult {
        if s.stream != nil { return streamWrite(s) }
        guard let r = s.response else {
            handedOver(s)
            return .proceed
        }
        let pre = Int(fs_lws_pre())
        let start = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        if !s.headersSent {
            let end = start + (scratchSize - pre - 16)
            var p: UnsafeMutablePointer<UInt8>? = start
            if lws_add_http_common_headers(s.wsi, UInt32(r.status), r.contentType, lws_filepos_t(r.body.count), &p, end) != 0 {
                return .hangUp
            }
            var extra = r.headers + corsHeaders(s)
            if s.closeAfter { extra.append(("connection", "close")) }
            guard Self.addHeaders(extra, s.wsi, &p, end) else { return .hangUp }
            if lws_finalize_write_http_header(s.wsi, start, &p, end) != 0 { return .hangUp }
            s.headersSent = true
            if r.body.isEmpty || s.method == "HEAD" { return finish(s) }
            lws_callback_on_writable(s.wsi)
            return .proceed
        }
        let chunk = min(r.body.count - s.bodyOffset, scratchSize - pre - 16)
        r.body.withUnsafeBytes { src in
            UnsafeMutableRawPointer(start).copyMemory(from: src.baseAddress! + s.bodyOffset, byteCount: chunk)
        }
        s.bodyOffset += chunk
        let last = s.bodyOffset >= r.body.count
        if lws_write(s.wsi, start, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < chunk { return .hangUp }
        if last { return finish(s) }
        lws_callback_on_writable(s.wsi)
        return .proceed
    }

    /// The answer is out: the connection waits for the next request, unless
    /// the body was refused unread (then it cannot carry another).
    private func finish(_ s: HTTPState) -> CallbackResult {
        exchanges[s.id] = nil
        if s.closeAfter { return .hangUp }
        return .hangUp(ifFailed: lws_http_transaction_completed(s.wsi))
    }

    /// Adds `headers` (any case; written lower-case) to a response being
    /// built at `p`; false when they do not fit before `end`.
    static func addHeaders(_ headers: [(String, String)], _ wsi: OpaquePointer,
                           _ p: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>) -> Bool {
        for (name, value) in headers {
            let key = Array((name.lowercased() + ":").utf8) + [0]
            let val = Array(value.utf8)
            let ok = key.withUnsafeBufferPointer { k in
                lws_add_http_header_by_name(wsi, k.baseAddress, val, Int32(val.count), &p, end) == 0
            }
            if !ok { return false }
        }
        return true
    }

    /// CORS for a page of an allowed origin: the origin echoed, never `*`
    /// (the answers may depend on the token the page sends). API answers are
    /// `no-store`; the library's files say `vary: origin` themselves.
    func corsHeaders(_ s: HTTPState) -> [(String, String)] {
        guard let origin = s.headers["origin"], config.corsOrigins.contains(origin) else { return [] }
        return [("access-control-allow-origin", origin)]
    }

    /// The contract's error body (`ErrorBody`, as the HTTP API answers),
    /// for refusals the transport makes itself.
    public static func errorResponse(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("cache-control", "no-store")], body: ErrorBody.encode(code: code, message: message))
    }
}
