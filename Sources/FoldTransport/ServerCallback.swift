import CLibWebSockets
import FoldCore
import Glibc

/// The single lws callback for all three protocol names. It recovers the
/// server from the context user pointer (the server outlives its context)
/// and dispatches. Every branch we do not handle falls through to
/// `lws_callback_http_dummy`, which also answers stray HTTP with a 404.
func serverCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let ctx = lws_get_context(wsi), let raw = lws_context_user(ctx) else {
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    }
    let server = Unmanaged<WebServer>.fromOpaque(raw).takeUnretainedValue()
    let pss = user?.assumingMemoryBound(to: fs_pss_t.self)
    // Whatever this callback queued (a fan-out, an ack, a timer's work)
    // leaves now, corked (see CorkedWriter).
    defer { server.writer.flush() }
    switch reason {
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        // Watched until it makes a request; gone before that = an unfinished handshake.
        server.accepted(wsi)
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    case LWS_CALLBACK_WSI_DESTROY:
        if server.unannounced.removeValue(forKey: wsi) != nil { server.counters.incompleteHandshakes += 1 }
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        server.unannounced[wsi] = nil
        return server.confirmUpgrade(wsi)
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return server.stopping || server.refuseNewConnections ? 1 : 0
    case LWS_CALLBACK_ESTABLISHED:
        guard let pss else { return -1 }
        server.established(wsi, pss)
        return 0
    case LWS_CALLBACK_RECEIVE:
        guard let pss, let c = server.connections[pss.pointee.id] else { return -1 }
        return server.receive(c, input, len)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        // lws answers the close itself; no data frame may follow it.
        if let pss, let c = server.connections[pss.pointee.id] { c.peerClosing = true }
        return 0
    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let pss, let c = server.connections[pss.pointee.id] else { return 0 }
        return server.writer.writeable(c)
    case LWS_CALLBACK_CLOSED:
        if let pss, let c = server.connections.removeValue(forKey: pss.pointee.id) {
            c.closed = true
            server.delegate?.closed(c)
        }
        return 0
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        // lws repeats this for every protocol of the vhost; act once.
        if lws_get_protocol(wsi).map({ $0.pointee.id == 0 }) ?? true {
            server.timers.runDue()
            server.delegate?.woken()
        }
        return 0
    case LWS_CALLBACK_HTTP:
        server.unannounced[wsi] = nil
        guard let pss else { return -1 }
        return server.httpBegin(wsi, pss)
    case LWS_CALLBACK_HTTP_BODY:
        guard let pss, let s = server.exchanges[pss.pointee.id] else { return -1 }
        return server.httpBody(s, input, len)
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard let pss, let s = server.exchanges[pss.pointee.id] else { return -1 }
        if s.response == nil { server.delegate?.request(s.request) }
        return 0
    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let pss, let s = server.exchanges[pss.pointee.id] else { return 0 }
        return server.httpWrite(s)
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED_HTTP:
        if let pss { server.exchanges[pss.pointee.id] = nil }
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, len)
    }
}

extension WebServer {
    func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    /// Decides an upgrade while the request headers are still there. A
    /// refusal is a real HTTP answer (403, 404, 503) rather than a hang-up,
    /// so browsers and scripts see why.
    func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let path = Headers.read(wsi, WSI_TOKEN_GET_URI) ?? ""
        var status: Int?
        if stopping || refuseNewConnections {
            status = 503
        } else if path != "/ws" {
            status = 404
        } else {
            var headers = Headers.all(wsi)
            headers["query"] = Headers.query(wsi)
            status = delegate?.admit(path: path, headers: headers, peer: Headers.peer(wsi))
        }
        guard let status else { return 0 }
        logger.debug("upgrade to \(path) refused with \(status)")
        return lws_return_http_status(wsi, UInt32(status), nil) != 0 ? -1 : 1
    }

    func established(_ wsi: OpaquePointer, _ pss: UnsafeMutablePointer<fs_pss_t>) {
        let id = allocateID()
        pss.pointee.id = id
        let name = lws_get_protocol(wsi).flatMap { $0.pointee.name.map { String(cString: $0) } } ?? ""
        var headers = Headers.all(wsi)
        headers["query"] = Headers.query(wsi)
        let c = Connection(
            id: id, wsi: wsi, batching: name == Subprotocol.batch,
            peer: Headers.peer(wsi), upgradeHeaders: headers, writer: writer)
        connections[id] = c
        delegate?.opened(c)
    }

    func receive(_ c: Connection, _ input: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        let wsi = c.wsi
        if lws_frame_is_binary(wsi) != 0 {
            counters.closedBinary += 1
            return closeNow(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "binary frames are not accepted")
        }
        if c.rx.count + len > config.maxMessageBytes {
            counters.closedTooLarge += 1
            return closeNow(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message over \(config.maxMessageBytes) bytes")
        }
        if let input, len > 0 {
            c.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
        }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        let message = c.rx
        c.rx.removeAll(keepingCapacity: c.rx.capacity <= 4096)
        message.withUnsafeBytes { delegate?.received(c, $0) }
        return 0
    }

    func closeNow(_ wsi: OpaquePointer, _ code: lws_close_status, _ reason: String) -> Int32 {
        var bytes = Array(reason.utf8.prefix(120))
        lws_close_reason(wsi, code, &bytes, bytes.count)
        return -1
    }
}
