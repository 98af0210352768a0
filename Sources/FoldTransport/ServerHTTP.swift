import CLibWebSockets
import FoldCore

extension WebServer {
    static let methods: [Int: String] = [
        Int(LWSHUMETH_GET): "GET", Int(LWSHUMETH_POST): "POST", Int(LWSHUMETH_OPTIONS): "OPTIONS",
        Int(LWSHUMETH_PUT): "PUT", Int(LWSHUMETH_PATCH): "PATCH", Int(LWSHUMETH_DELETE): "DELETE",
        Int(LWSHUMETH_HEAD): "HEAD",
    ]

    func httpBegin(_ wsi: OpaquePointer, _ pss: UnsafeMutablePointer<fs_pss_t>) -> Int32 {
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
            return 0
        }
        if declared > 0 && ["POST", "PUT", "PATCH"].contains(state.method) {
            state.body.reserveCapacity(declared)
            return 0  // the body arrives in HTTP_BODY callbacks
        }
        delegate?.request(state.request)
        return 0
    }

    func httpBody(_ s: HTTPState, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        if s.response != nil { return 0 }
        if s.body.count + len > config.maxBodyBytes {
            s.closeAfter = true
            respond(s.id, Self.errorResponse(413, "too_large", "body over \(config.maxBodyBytes) bytes"))
            return 0
        }
        if let input, len > 0 { s.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len)) }
        return 0
    }

    /// Headers in one callback, then the body in chunks, one write per callback.
    func httpWrite(_ s: HTTPState) -> Int32 {
        guard let r = s.response else { return 0 }
        let pre = Int(fs_lws_pre())
        let start = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        if !s.headersSent {
            let end = start + (scratchSize - pre - 16)
            var p: UnsafeMutablePointer<UInt8>? = start
            if lws_add_http_common_headers(s.wsi, UInt32(r.status), r.contentType, lws_filepos_t(r.body.count), &p, end) != 0 {
                return -1
            }
            var extra = r.headers
            if s.closeAfter { extra.append(("connection", "close")) }
            for (name, value) in extra {
                let key = Array((name.lowercased() + ":").utf8) + [0]
                let val = Array(value.utf8)
                let ok = key.withUnsafeBufferPointer { k in
                    lws_add_http_header_by_name(s.wsi, k.baseAddress, val, Int32(val.count), &p, end) == 0
                }
                if !ok { return -1 }
            }
            if lws_finalize_write_http_header(s.wsi, start, &p, end) != 0 { return -1 }
            s.headersSent = true
            if r.body.isEmpty || s.method == "HEAD" { return finish(s) }
            lws_callback_on_writable(s.wsi)
            return 0
        }
        let chunk = min(r.body.count - s.bodyOffset, scratchSize - pre - 16)
        r.body.withUnsafeBytes { src in
            UnsafeMutableRawPointer(start).copyMemory(from: src.baseAddress! + s.bodyOffset, byteCount: chunk)
        }
        s.bodyOffset += chunk
        let last = s.bodyOffset >= r.body.count
        if lws_write(s.wsi, start, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < chunk { return -1 }
        if last { return finish(s) }
        lws_callback_on_writable(s.wsi)
        return 0
    }

    private func finish(_ s: HTTPState) -> Int32 {
        exchanges[s.id] = nil
        if s.closeAfter { return -1 }
        return lws_http_transaction_completed(s.wsi) != 0 ? -1 : 0
    }

    /// The contract's error body, for refusals the transport makes itself.
    public static func errorResponse(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        var body = Array(#"{"code":""#.utf8)
        body += Array(code.utf8)
        body += Array(#"","message":""#.utf8)
        body += Array(message.utf8.filter { $0 != 0x22 && $0 != 0x5C && $0 >= 0x20 })
        body += Array(#""}"#.utf8)
        return HTTPResponse(status: status, body: body)
    }
}
