import CLibWebSockets
import FoldCore
import Glibc

/// The lws callback of client contexts. It recovers the `WebClient` from the
/// context user pointer (the client outlives its context) and the socket or
/// fetch from the wsi's opaque user data (its id). Runs on the service
/// thread, like everything lws calls.
func clientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let ctx = lws_get_context(wsi), let raw = lws_context_user(ctx) else {
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    }
    return dispatch(wsi, reason, user, input, len, raw).rawValue
}

/// `clientCallback` with the client found, answering in named results.
private func dispatch(
    _ wsi: OpaquePointer, _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ len: Int,
    _ raw: UnsafeMutableRawPointer
) -> CallbackResult {
    let client = Unmanaged<WebClient>.fromOpaque(raw).takeUnretainedValue()
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
        client.delegate?.woken()
        return .proceed
    }
    let id = UInt64(UInt(bitPattern: lws_get_opaque_user_data(wsi)))
    switch reason {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        // A refused upgrade: lws still holds the answer's status here (its
        // header table goes with the wsi); 0 when there was no answer.
        let status = Int(lws_http_client_http_response(wsi))
        if client.starting { client.failLater(id, why, status: status) } else { client.failed(id, why, status: status) }
        return .proceed
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
        return client.appendHeaders(id, wsi, input, len)
    case LWS_CALLBACK_CLIENT_FILTER_PRE_ESTABLISH:
        // The answer's headers are still there (by ESTABLISHED, lws 4.1 and 4.3 have
        // dropped them): the subprotocol the server chose.
        client.sockets[id]?.subprotocol = Headers.read(wsi, WSI_TOKEN_PROTOCOL)
        return .proceed
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        guard let socket = client.sockets[id] else { return .hangUp }
        if socket.state == .connecting { socket.state = .open }
        if socket.subprotocol == nil { socket.subprotocol = Headers.read(wsi, WSI_TOKEN_PROTOCOL) }
        client.headers[id] = nil
        client.delegate?.opened(socket)
        return .proceed
    case LWS_CALLBACK_CLIENT_RECEIVE:
        guard let socket = client.sockets[id] else { return .hangUp }
        return client.receive(socket, wsi, input, len)
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        guard let socket = client.sockets[id] else { return .proceed }
        return client.writeable(socket, wsi)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if let socket = client.sockets[id], let input {
            let bytes = UnsafeRawBufferPointer(start: input, count: len)
            if let code = CloseCode(closePayload: bytes) {
                socket.peerClose = (code, String(decoding: bytes.dropFirst(2), as: UTF8.self))
            }
        }
        return .proceed
    case LWS_CALLBACK_CLIENT_CLOSED:
        client.release(id)
        if let socket = client.sockets.removeValue(forKey: id) {
            socket.state = .closed
            client.delegate?.closed(socket, .closed(code: socket.peerClose?.code, reason: socket.peerClose?.reason ?? ""))
        }
        return .proceed
    case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
        client.headers[id] = nil
        client.fetches[id]?.status = Int(lws_http_client_http_response(wsi))
        return .proceed
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
        guard let f = client.fetches[id] else { return .hangUp }
        if let input, len > 0 {
            if f.body.count + len > client.options.maxMessageBytes { return .hangUp }
            f.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
        }
        return .proceed
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
        // lws wants us to pull the body: it calls back RECEIVE_CLIENT_HTTP_READ.
        var buffer = [CChar](repeating: 0, count: 4096 + Int(fs_lws_pre()))
        return buffer.withUnsafeMutableBufferPointer { b -> CallbackResult in
            var p: UnsafeMutablePointer<CChar>? = b.baseAddress! + Int(fs_lws_pre())
            var n = Int32(4096)
            return lws_http_client_read(wsi, &p, &n) < 0 ? .hangUp : .proceed
        }
    case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
        if let f = client.fetches.removeValue(forKey: id), !f.done {
            f.done = true
            client.delegate?.fetched(id, .success(HTTPReply(status: f.status, body: f.body)))
        }
        client.release(id)
        // Done with this exchange: no keep-alive for a one-shot GET.
        return .hangUp
    case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
        client.failed(id, "connection closed before the answer")
        client.release(id)
        return .proceed
    default:
        return CallbackResult(rawValue: lws_callback_http_dummy(wsi, reason, user, input, len))
    }
}

extension WebClient {
    /// Writes the extra headers of connection `id` into the handshake.
    /// `input` is lws' `unsigned char **` write cursor, `len` the room left.
    func appendHeaders(_ id: UInt64, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ len: Int) -> CallbackResult {
        guard let list = headers[id], let input else { return .proceed }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return .hangUp }
        let end = start + len
        for (name, value) in list {
            let n = Array((name.lowercased() + ":").utf8) + [0]
            let v = Array(value.utf8)
            let rc = lws_add_http_header_by_name(wsi, n, v, Int32(v.count), cursor, end)
            if rc != 0 { return .hangUp }
        }
        return .proceed
    }

    func receive(_ socket: ClientSocket, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ len: Int) -> CallbackResult {
        if socket.rx.count + len > options.maxMessageBytes {
            var reason = Array("message too large".utf8)
            lws_close_reason(wsi, CloseCode.messageTooBig.lws, &reason, reason.count)
            return .hangUp
        }
        if let input, len > 0 {
            socket.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return .proceed }
        let message = socket.rx
        socket.rx.removeAll(keepingCapacity: socket.rx.capacity <= 64 * 1024)
        // Binary messages are not part of any protocol this client speaks.
        if lws_frame_is_binary(wsi) != 0 { return .proceed }
        if socket.state == .open { delegate?.received(socket, message) }
        return .proceed
    }

    /// One frame per callback, as lws wants; then the close frame, if asked.
    func writeable(_ socket: ClientSocket, _ wsi: OpaquePointer) -> CallbackResult {
        if socket.queue.isEmpty || socket.closeRequest != nil {
            if let close = socket.closeRequest {
                var bytes = Array(close.reason.utf8)
                lws_close_reason(wsi, close.code.lws, &bytes, bytes.count)
                return .hangUp
            }
            return .proceed
        }
        let frame = socket.queue.removeFirst()
        if lws_write(wsi, frame.payload, frame.count, LWS_WRITE_TEXT) < frame.count { return .hangUp }
        if !socket.queue.isEmpty { lws_callback_on_writable(wsi) }
        return .proceed
    }
}
