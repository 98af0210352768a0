import CLibWebSockets
import FoldCore

/// Deciding a WebSocket upgrade, and answering a refusal so that every
/// client can read it. Service thread, inside `HTTP_CONFIRM_UPGRADE`.
extension WebServer {
    /// Decides an upgrade while the request headers are still there. A
    /// refusal is a real HTTP answer (401, 403, 404, 503) with the HTTP API's
    /// JSON error body, rather than a hang-up, so browsers and scripts see why.
    /// lws (4.1.6 and 4.3.5 alike, `lws_process_ws_upgrade`) copies the
    /// subprotocol list into a 128-byte buffer with `lws_hdr_copy(..., 127)`,
    /// which fails from 127 bytes on (room for the NUL), and drops the
    /// connection without an answer; a `token.` offer carrying a JWT usually
    /// is that long: refused here first, with an answer that says why.
    static let maxProtocolOffer = 126

    func confirmUpgrade(_ wsi: OpaquePointer) -> CallbackResult {
        let path = Headers.read(wsi, WSI_TOKEN_GET_URI) ?? ""
        let refusal: HTTPResponse?
        if stopping || refuseNewConnections {
            refusal = Self.errorResponse(503, "unavailable", "the daemon is shutting down")
        } else if Int(lws_get_socket_fd(wsi)) >= upgradeDescriptorCeiling {
            counters.refusedAtDescriptorLimit += 1
            refusal = Self.errorResponse(503, "unavailable", "the daemon is at its descriptor limit; try again later")
        } else if path != "/ws" {
            refusal = Self.errorResponse(404, "not_found", "WebSocket connections are served at /ws")
        } else if let offer = Headers.read(wsi, WSI_TOKEN_PROTOCOL), offer.utf8.count > Self.maxProtocolOffer {
            refusal = Self.errorResponse(400, "bad_request", "the Sec-WebSocket-Protocol header is \(offer.utf8.count) bytes, over the \(Self.maxProtocolOffer) this daemon can read: present a long token (a JWT) with Authorization: Bearer or an auth message instead")
        } else {
            var headers = Headers.all(wsi)
            headers["query"] = Headers.query(wsi)
            refusal = delegate?.admit(path: path, headers: headers, peer: Headers.peer(wsi))
        }
        guard let refusal else { return .proceed }
        logger.debug("upgrade to \(path) refused with \(refusal.status)")
        return refuseUpgrade(wsi, refusal)
    }

    /// Writes `r` as the answer to the upgrade request, then hangs up.
    ///
    /// Why not `lws_return_http_status`: on this path lws 4.1.6 has not run
    /// `lws_http_action`, which is what reads the request's HTTP version, so
    /// `lws_add_http_header_status` writes `HTTP/1.0` (version 0 of its
    /// table) and strict RFC 6455 clients (Python's `websockets`) cannot read
    /// the answer. So the status line is written here, as an `HTTP/1.1` line
    /// through `lws_add_http_header_by_name` with no name (lws writes the
    /// value and CRLF), then the headers and the body in one write, as
    /// `lws_return_http_status` itself does on HTTP/1.
    ///
    /// Why `.hangUp` and not `.refuse` (1, "answered"): after 1 lws calls
    /// `lws_http_transaction_completed`, which keeps the connection when an
    /// earlier request on it was keep-alive, and we said `connection: close`.
    /// A hang-up still sends what was written: lws flushes a connection's
    /// pending output before it closes it (`LRS_FLUSHING_BEFORE_CLOSE`).
    ///
    /// Only HTTP/1 gets here: lws raises `HTTP_CONFIRM_UPGRADE` only for an
    /// `Upgrade:` header (`lws_handshake_server`), which HTTP/2 does not have.
    func refuseUpgrade(_ wsi: OpaquePointer, _ r: HTTPResponse) -> CallbackResult {
        let pre = Int(fs_lws_pre())
        let start = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        let end = start + (scratchSize - pre - 16)
        var p: UnsafeMutablePointer<UInt8>? = start
        let statusLine = Array("HTTP/1.1 \(r.status) \(HTTPStatus.reason(r.status))".utf8)
        guard lws_add_http_header_by_name(wsi, nil, statusLine, Int32(statusLine.count), &p, end) == 0 else { return .hangUp }
        let length = Array(String(r.body.count).utf8)
        let contentType = Array(r.contentType.utf8)
        guard lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, contentType, Int32(contentType.count), &p, end) == 0,
              lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, length, Int32(length.count), &p, end) == 0
        else { return .hangUp }
        guard Self.addHeaders(r.headers + [("connection", "close")], wsi, &p, end) else { return .hangUp }
        guard lws_finalize_http_header(wsi, &p, end) == 0, let bodyStart = p, end - bodyStart >= r.body.count else { return .hangUp }
        r.body.withUnsafeBytes { UnsafeMutableRawPointer(bodyStart).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let n = bodyStart - start + r.body.count
        _ = lws_write(wsi, start, n, LWS_WRITE_HTTP)
        return .hangUp
    }
}
