import CLibWebSockets
import Glibc
import FoldCore

/// Server-Sent Events: an HTTP exchange the hub turned into a stream. The
/// hub frames the events (encoded once per change, shared by every stream);
/// the transport queues them within the same bound as a WebSocket's queue,
/// writes on `HTTP_WRITEABLE`, and reports an overflow, a drain after a
/// resync, and the stream's end, as it does for WebSockets. Service thread
/// only: other threads reach it through the hub's mailbox.
extension WebServer {
    /// Answers exchange `id` with a `text/event-stream` that stays open.
    public func openStream(_ id: UInt64) {
        guard let s = exchanges[id], s.response == nil, s.stream == nil else { return }
        s.stream = StreamOut()
        s.response = HTTPResponse(status: 200, contentType: "text/event-stream", headers: [
            ("cache-control", "no-store"),
            // Proxies that buffer (nginx) would hold the events back.
            ("x-accel-buffering", "no"),
        ])
        lws_callback_on_writable(s.wsi)
    }

    /// Queues `event` on each stream of `ids`; with a `bound`, a stream
    /// whose queue has no room gets nothing and is reported to `overflow`.
    public func streamSend(_ event: [UInt8], to ids: [UInt64], within bound: QueueBound?, overflow: (UInt64) -> Void) {
        for id in ids {
            guard let s = exchanges[id], s.stream != nil else { continue }
            if s.stream!.push(event, within: bound) {
                lws_callback_on_writable(s.wsi)
            } else {
                overflow(id)
            }
        }
    }

    /// Replaces what a stream has queued with `events` (a snapshot), and
    /// reports `drained` once it is out.
    public func streamResync(_ id: UInt64, _ events: [[UInt8]]) {
        guard let s = exchanges[id], s.stream != nil else { return }
        s.stream!.discard()
        for e in events { _ = s.stream!.push(e, within: nil) }
        s.stream!.drainWatched = true
        lws_callback_on_writable(s.wsi)
    }

    /// Ends a stream: after what is queued (`flush`), or at once.
    public func endStream(_ id: UInt64, flush: Bool) {
        guard let s = exchanges[id], s.stream != nil else { return }
        if flush && !s.stream!.isEmpty {
            s.stream!.ending = true
            lws_callback_on_writable(s.wsi)
        } else {
            s.stream!.ending = true
            s.stream!.discard()
            // Not inside this wsi's callback: lws closes it on its next pass.
            lws_set_timeout(s.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
    }

    /// Ends the streams whose reader closed its socket. lws 4.1.6 reads
    /// nothing from a connection while it serves a response
    /// (LRS_DOING_TRANSACTION; 4.3 reads there "at least for SSE"), so a
    /// reader's close leaves the socket readable, the service thread polls
    /// it in a loop, and nothing ends the stream. Asked once a second (a
    /// peek: nothing is consumed), which bounds that loop to the sweep. On
    /// 4.3.5 lws ends such a stream itself and the sweep finds nothing left.
    func sweepClosedStreams() {
        for s in exchanges.values where s.stream != nil && s.headersSent && !s.stream!.ending {
            let fd = lws_get_socket_fd(s.wsi)
            guard fd >= 0 else { continue }
            guard Self.peerHasGone(socket: fd) else { continue }
            // Closed from its own WRITEABLE (below): lws' timeout would not
            // close it while the loop spins on it.
            s.stream!.ending = true
            s.stream!.discard()
            lws_callback_on_writable(s.wsi)
        }
    }

    /// The headers once, then one write of queued events per WRITEABLE.
    func streamWrite(_ s: HTTPState) -> CallbackResult {
        guard !s.headersSent else { return streamBody(s) }
        let pre = Int(fs_lws_pre())
        let start = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        let end = start + (scratchSize - pre - 16)
        var p: UnsafeMutablePointer<UInt8>? = start
        // lws_filepos_t.max is LWS_ILLEGAL_HTTP_CONTENT_LEN ((lws_filepos_t)-1): no length, the body runs until the end.
        guard let r = s.response,
              lws_add_http_common_headers(s.wsi, UInt32(r.status), r.contentType, lws_filepos_t.max, &p, end) == 0
        else { return .hangUp }
        guard Self.addHeaders(r.headers + corsHeaders(s), s.wsi, &p, end) else { return .hangUp }
        if lws_finalize_write_http_header(s.wsi, start, &p, end) != 0 { return .hangUp }
        s.headersSent = true
        // lws arms PENDING_TIMEOUT_HTTP_CONTENT on every request when it
        // hands it over (LWS_CALLBACK_HTTP), with the context's
        // `timeout_secs`, and writing does not disarm it: a quiet stream
        // would end after it. A stream was answered within the hand-over,
        // so `handedOver`'s own disarming never ran for it; this is that
        // disarming. A stream lives until its reader goes (noticed by
        // `sweepClosedStreams`, or a failed write), it is ended here, or
        // the daemon stops.
        lws_set_timeout(s.wsi, NO_PENDING_TIMEOUT, 0)
        // The request's header storage goes back to lws' pool (its values
        // were copied); `lws_http_mark_sse` would do the same and then log
        // an error on every HTTP/1 stream ("not h2 substream").
        lws_http_headers_detach(s.wsi)
        if !s.stream!.isEmpty { lws_callback_on_writable(s.wsi) }
        return .proceed
    }

    private func streamBody(_ s: HTTPState) -> CallbackResult {
        guard var out = s.stream else { return .proceed }
        let pre = Int(fs_lws_pre())
        let start = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        let n = out.peek(into: start, capacity: scratchSize - pre - 16)
        if n > 0 {
            // lws keeps whatever the socket did not take and asks for
            // WRITEABLE again only once that is out: at most one chunk.
            guard lws_write(s.wsi, start, n, LWS_WRITE_HTTP) >= 0 else { return .hangUp }
            out.consumed(n)
        }
        if out.isEmpty && out.ending { s.stream = out; return .hangUp }
        if out.isEmpty && out.drainWatched {
            out.drainWatched = false
            s.stream = out
            delegate?.streamDrained(s.id)
            return .proceed
        }
        if !out.isEmpty { lws_callback_on_writable(s.wsi) }
        s.stream = out
        return .proceed
    }
}
