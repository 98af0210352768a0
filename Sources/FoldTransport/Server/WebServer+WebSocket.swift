import CLibWebSockets
import FoldCore
import FoldSystem
import Glibc

/// The WebSocket half of the callbacks: a connection opens, a message arrives. Service thread.
extension WebServer {
    func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
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

    func receive(_ c: Connection, _ input: UnsafeMutableRawPointer?, _ len: Int) -> CallbackResult {
        let wsi = c.wsi
        c.heard(now: Pacing.now())
        if lws_frame_is_binary(wsi) != 0 {
            return closeNow(c, .unsupportedData, "binary frames are not accepted", cause: .binaryFrame)
        }
        if c.rx.count + len > config.maxMessageBytes {
            return closeNow(c, .messageTooBig, "message over \(config.maxMessageBytes) bytes", cause: .messageTooLarge)
        }
        let whole = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        if whole && c.rx.isEmpty {
            // The usual case, a message in one chunk: handed on from lws' buffer,
            // so no copy, and no buffer kept per connection for it.
            delegate?.received(c, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len))
            return .proceed
        }
        if let input, len > 0 {
            c.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
        }
        guard whole else { return .proceed }
        let message = c.rx
        c.rx.removeAll(keepingCapacity: c.rx.capacity <= 4096)
        message.withUnsafeBytes { delegate?.received(c, $0) }
        return .proceed
    }

    /// Closes from inside this connection's own callback: the close frame
    /// is queued, and the callback's `.hangUp` makes lws send it and go.
    func closeNow(_ c: Connection, _ code: CloseCode, _ reason: String, cause: CloseCause) -> CallbackResult {
        c.closeCause = cause
        return Self.closeNow(c.wsi, code, reason)
    }

    static func closeNow(_ wsi: OpaquePointer, _ code: CloseCode, _ reason: String) -> CallbackResult {
        var bytes = Array(reason.utf8.prefix(120))
        lws_close_reason(wsi, code.lws, &bytes, bytes.count)
        return .hangUp
    }

    /// A connection lws is closing: counted once, under the cause the daemon
    /// gave, or else what the connection shows (see `CloseCause`).
    func countClose(_ c: Connection) {
        let cause = c.closeCause ?? (c.out.peerClosing ? .peerClosed : c.out.failed ? .peerGone
            : Self.peerHasGone(socket: lws_get_socket_fd(c.wsi)) ? .peerGone : .transport)
        counters.closes[cause, default: 0] += 1
    }

    /// Whether the peer ended the stream or reset it: the socket reads as
    /// end of stream or fails (lws still holds it open while it says CLOSED).
    /// A socket with nothing to read yet, or data waiting, has a live peer.
    static func peerHasGone(socket fd: Int32) -> Bool {
        guard fd >= 0 else { return true }
        var byte: UInt8 = 0
        do {
            // Nothing to read yet (nil) or data waiting: a live peer. End of stream or an error: gone.
            return try nonBlockingCall("recv") { recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) } == 0
        } catch {
            return true
        }
    }
}
