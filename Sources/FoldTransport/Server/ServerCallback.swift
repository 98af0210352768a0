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
    return dispatch(wsi, reason, user, input, len, raw).rawValue
}

/// `serverCallback` with the server found, answering in named results.
/// What is not ours goes to lws' dummy callback, whose number we pass on.
private func dispatch(
    _ wsi: OpaquePointer, _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ len: Int,
    _ raw: UnsafeMutableRawPointer
) -> CallbackResult {
    func dummy() -> CallbackResult { CallbackResult(rawValue: lws_callback_http_dummy(wsi, reason, user, input, len)) }
    let server = Unmanaged<WebServer>.fromOpaque(raw).takeUnretainedValue()
    let pss = user?.assumingMemoryBound(to: fs_pss_t.self)
    // Whatever this callback queued (a fan-out, an ack, a timer's work)
    // leaves now, corked (see CorkedWriter).
    defer { server.writer.flush() }
    switch reason {
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        // Watched until it makes a request; gone before that = an unfinished handshake.
        server.accepted(wsi)
        return dummy()
    case LWS_CALLBACK_WSI_DESTROY:
        if server.unannounced.removeValue(forKey: wsi) != nil { server.counters.incompleteHandshakes += 1 }
        return dummy()
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        server.unannounced[wsi] = nil
        return server.confirmUpgrade(wsi)
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        // Past CONFIRM_UPGRADE already (which answers 503 then); a last guard.
        return server.stopping || server.refuseNewConnections ? .refuse : .proceed
    case LWS_CALLBACK_ESTABLISHED:
        guard let pss else { return WebServer.closeNow(wsi, .internalError, "no session data") }
        server.established(wsi, pss)
        return .proceed
    case LWS_CALLBACK_RECEIVE:
        // A connection the server does not know is its own failure: 1011, not a silent drop.
        guard let pss, let c = server.connections[pss.pointee.id] else {
            return WebServer.closeNow(wsi, .internalError, "connection unknown to the server")
        }
        return server.receive(c, input, len)
    case LWS_CALLBACK_RECEIVE_PONG:
        if let pss, let c = server.connections[pss.pointee.id] { c.heard(now: Pacing.now()) }
        return .proceed
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        // lws answers the close itself; no data frame may follow it.
        if let pss, let c = server.connections[pss.pointee.id] { c.out.peerBeganClose() }
        return .proceed
    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let pss, let c = server.connections[pss.pointee.id] else { return .proceed }
        return CallbackResult(rawValue: server.writer.writeable(c))
    case LWS_CALLBACK_CLOSED:
        if let pss, let c = server.forget(pss.pointee.id) {
            server.countClose(c)
            c.out.lwsClosed()
            server.delegate?.closed(c)
        }
        return .proceed
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        // lws repeats this for every protocol of the vhost; act once.
        if lws_get_protocol(wsi).map({ $0.pointee.id == 0 }) ?? true {
            server.timers.runDue()
            server.delegate?.woken()
        }
        return .proceed
    case LWS_CALLBACK_HTTP:
        server.unannounced[wsi] = nil
        guard let pss else { return .hangUp }
        return server.httpBegin(wsi, pss)
    case LWS_CALLBACK_HTTP_BODY:
        guard let pss, let s = server.exchanges[pss.pointee.id] else { return .hangUp }
        return server.httpBody(s, input, len)
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard let pss, let s = server.exchanges[pss.pointee.id] else { return .hangUp }
        if s.response == nil {
            server.delegate?.request(s.request)
            server.handedOver(s)
        }
        return .proceed
    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let pss, let s = server.exchanges[pss.pointee.id] else { return .proceed }
        return server.httpWrite(s)
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED_HTTP:
        if let pss, let s = server.exchanges.removeValue(forKey: pss.pointee.id), s.stream != nil {
            server.delegate?.streamClosed(s.id)
        }
        return dummy()
    default:
        return dummy()
    }
}
