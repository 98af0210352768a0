import CLibWebSockets
import Glibc

/// Writes WebSocket queues the way the fastest broadcasters do: everything
/// queued for a connection leaves in one system call, and at once when the
/// socket has room, instead of a round trip through the event loop
/// (`lws_callback_on_writable`, an epoll_ctl, a wake-up, the WRITEABLE
/// callback, another epoll_ctl) for every delivery.
///
/// Frames are queued during a service turn (a commit's fan-out, a received
/// action); `flush()` runs when the turn's callback returns and writes each
/// touched connection once: several queued messages become one buffer of
/// complete RFC 6455 frames sent with `LWS_WRITE_RAW`, or one
/// newline-separated frame for batching peers. A turn's lone fan-out does
/// not wait for the flush: it calls `writeNow` for each connection as it
/// queues (`WebServer.fanOut`). When lws still holds part of
/// an earlier write (`lws_partial_buffered`), the connection waits for its
/// WRITEABLE callback instead, so lws never buffers more than one write per
/// connection and the queue bound stays the daemon's.
///
/// Why a partial kernel write cannot corrupt a frame: `lws_issue_raw` keeps
/// whatever the socket did not take in the connection's `buflist_out`, appends
/// any later write behind it, and drains it before PONG, CLOSE or our
/// WRITEABLE callback (lws 4.1.6 `lws_handle_POLLOUT_event`, priority 1).
///
/// Threading (lws' contract): service thread only, like every connection.
final class CorkedWriter {
    /// What a write did: done, or failed (lws drops the connection).
    private enum Outcome { case written, failed }

    let pacer: WritePacer
    /// Connections with frames queued this turn, each once (`Connection.scheduled`).
    private var touched: [Connection] = []
    private var spare: [Connection] = []
    /// One buffer for every coalesced write; lws copies what the socket leaves.
    private let scratch: UnsafeMutableRawPointer
    let scratchSize: Int
    private let pre = Int(fs_lws_pre())
    var drained: (Connection) -> Void = { _ in }
    /// `lws_write` calls carrying WebSocket messages, and the messages in them (for `/metrics`).
    private(set) var writes = 0
    private(set) var messagesWritten = 0
    /// Writes the socket took only part of; the rest went to lws.
    private(set) var shortWrites = 0

    init(maxWriteBytes: Int, lingerMs: Int, schedule: @escaping (Int64, @escaping () -> Void) -> Void) {
        scratchSize = max(maxWriteBytes, 64 * 1024) + Int(fs_lws_pre()) + 16
        scratch = .allocate(byteCount: scratchSize, alignment: 16)
        pacer = WritePacer(lingerMs: lingerMs, schedule: schedule)
        pacer.release = { [unowned self] c in self.touch(c) }
    }

    deinit { scratch.deallocate() }

    /// A frame was queued on `c`.
    @inline(__always)
    func queued(_ c: Connection) { touch(c) }

    /// Puts `c` on this turn's flush list, unless something else writes it
    /// later anyway: the pacer's release or lws' WRITEABLE callback (under a
    /// paced stream most connections are waiting, on every fan-out).
    @inline(__always)
    func touch(_ c: Connection) {
        if c.scheduled || c.deferred || c.awaiting { return }
        c.scheduled = true
        touched.append(c)
    }

    /// Writes every connection touched since the last flush. Called when a
    /// service callback that may have queued frames returns.
    func flush() {
        guard !touched.isEmpty else { return }
        swap(&touched, &spare)
        // One clock read per turn, not per connection.
        let now = WritePacer.now()
        spare.withUnsafeBufferPointer { list in
            guard let base = list.baseAddress else { return }
            let refs = UnsafeRawPointer(base)
            for i in list.indices {
                Self.prefetch(refs, count: list.count, after: i)
                let c = list[i]
                c.scheduled = false
                writeNow(c, now: now)
            }
        }
        spare.removeAll(keepingCapacity: true)
    }

    /// Hints the cache at what writing the connection two ahead of `i` (of
    /// `count`) will read: its object, given the references (as
    /// `[Connection]` or `[Unmanaged<Connection>]` lay them out) read as raw
    /// words, so no reference is counted. One system call ahead is time
    /// enough for the line to arrive. Nothing inside lws' own structures is
    /// hinted: their layout is private and a security update may move it.
    @inline(__always)
    static func prefetch(_ refs: UnsafeRawPointer, count: Int, after i: Int) {
        let word = MemoryLayout<UnsafeRawPointer>.stride
        if i + 2 < count { fs_prefetch(refs.load(fromByteOffset: (i + 2) * word, as: UnsafeRawPointer.self)) }
    }

    /// Writes what `c` has queued now, unless something else writes it
    /// later (the pacer, lws' WRITEABLE callback) or lws still holds part of
    /// an earlier write (then it asks for WRITEABLE).
    @inline(__always)
    func writeNow(_ c: Connection, now: UInt64) {
        guard !c.closed, !c.peerClosing, !c.awaiting, !c.deferred, !c.queue.isEmpty else { return }
        if pacer.holds(c, now: now) { return }
        if c.direct && lws_partial_buffered(c.wsi) == 0 {
            switch write(c, now: now) {
            case .written: afterWrite(c)
            case .failed: drop(c)
            }
        } else {
            request(c)
        }
    }

    /// Not inside this connection's callback: lws drops it on its next turn.
    private func drop(_ c: Connection) {
        c.writeFailed = true
        lws_set_timeout(c.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }

    /// What the socket did not take of a write: lws keeps it and sends it
    /// first. False when lws failed.
    private func handOver(_ c: Connection, _ bytes: UnsafeMutablePointer<UInt8>, _ count: Int, sent: Int) -> Bool {
        shortWrites &+= 1
        let rest = count - sent
        return lws_write(c.wsi, bytes + sent, rest, fs_lws_write_raw()) >= rest
    }

    /// The WRITEABLE callback: one write, as lws documents. Returns the callback's result.
    func writeable(_ c: Connection) -> Int32 {
        c.awaiting = false
        // lws is answering the peer's close: no data frame may follow it.
        if c.peerClosing { return 0 }
        if c.pingDue && c.closeRequest == nil { return ping(c) }
        if c.queue.isEmpty {
            guard let close = c.closeRequest else { return 0 }
            var bytes = Array(close.reason.utf8)
            lws_close_reason(c.wsi, lws_close_status(rawValue: UInt32(close.code)), &bytes, bytes.count)
            return -1
        }
        if c.deferred { return 0 }
        if write(c, now: WritePacer.now()) != .written {
            c.writeFailed = true
            return -1
        }
        afterWrite(c)
        return 0
    }

    /// The keep-alive's PING (see `KeepAlive`), through lws, which frames
    /// control messages itself; here in WRITEABLE lws holds nothing unsent,
    /// so it cannot cut into a frame of ours. What is queued follows on the
    /// next WRITEABLE. Never empty: lws 4.1.6 does not report an empty PONG
    /// (`LWS_CALLBACK_RECEIVE_PONG`), and the echo is how the peer is heard.
    private func ping(_ c: Connection) -> Int32 {
        c.pingDue = false
        let payload = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        payload[0] = 0x66  // "f"
        payload[1] = 0x73  // "s"
        if lws_write(c.wsi, payload, 2, LWS_WRITE_PING) < 0 {
            c.writeFailed = true
            return -1
        }
        if !c.queue.isEmpty { request(c) }
        return 0
    }

    /// Asks for a WRITEABLE callback to send the keep-alive's PING.
    func schedulePing(_ c: Connection) {
        guard !c.closed, !c.peerClosing, c.closeRequest == nil else { return }
        c.pingDue = true
        request(c)
    }

    /// Asks lws for a WRITEABLE callback (once per connection at a time).
    func request(_ c: Connection) {
        guard !c.closed, !c.awaiting else { return }
        c.awaiting = true
        lws_callback_on_writable(c.wsi)
    }

    private func afterWrite(_ c: Connection) {
        if c.queue.isEmpty {
            if c.closeRequest != nil { request(c) }
            if c.drainWatched {
                c.drainWatched = false
                drained(c)
            }
        } else {
            request(c)
        }
    }

    /// One write of as much of the queue as fits.
    private func write(_ c: Connection, now: UInt64) -> Outcome {
        guard let first = c.queue.first else { return .written }
        let queued = c.queue.count
        defer {
            let sent = queued - c.queue.count
            writes &+= 1
            messagesWritten &+= sent
            pacer.wrote(c, messages: sent, now: now)
        }
        let limit = scratchSize - pre - 16
        // One message, or one too big to share a buffer: it leaves alone, in place.
        let alone = c.queue.count == 1 || first.count + 14 >= limit
        if c.plainSocket < 0 { return writeThroughLWS(c, first, alone: alone, limit: limit) }
        if alone { return writeInPlace(c, first) }
        return writeGathered(c, limit: limit)
    }

    /// A plain socket's message that leaves alone: the header goes into the
    /// frame's own headroom (shared, rewritten by each
    /// write on this one thread, as lws itself does).
    @inline(__always)
    private func writeInPlace(_ c: Connection, _ first: OutFrame) -> Outcome {
        c.queue.dropFirst()
        let h = WebSocketHeader.length(first.count)
        let start = first.payload - h
        _ = WebSocketHeader.write(textLength: first.count, to: start)
        return send(c, start, h + first.count)
    }

    /// A plain socket's several messages, framed into the scratch buffer:
    /// complete frames, or one newline-joined frame for a batching peer.
    private func writeGathered(_ c: Connection, limit: Int) -> Outcome {
        let base = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        guard c.batching else { return send(c, base, frameAll(c, into: base, limit: limit)) }
        let used = joinBatch(c, into: base, limit: limit)
        let h = WebSocketHeader.length(used)
        _ = WebSocketHeader.write(textLength: used, to: base - h)
        return send(c, base - h, h + used)
    }

    /// A connection whose frames lws must wrap itself (WebSocket over
    /// HTTP/2, or lws holds state of its own): a message that leaves alone
    /// (or any, when lws must see each), in place as a text frame with lws
    /// writing the header into the headroom; several, framed into the scratch buffer.
    private func writeThroughLWS(_ c: Connection, _ first: OutFrame, alone: Bool, limit: Int) -> Outcome {
        if alone || !c.direct {
            c.queue.dropFirst()
            return lws_write(c.wsi, first.payload, first.count, LWS_WRITE_TEXT) >= first.count ? .written : .failed
        }
        let base = (scratch + pre).assumingMemoryBound(to: UInt8.self)
        let used = c.batching ? joinBatch(c, into: base, limit: limit) : frameAll(c, into: base, limit: limit)
        let raw = c.batching ? LWS_WRITE_TEXT : fs_lws_write_raw()
        return lws_write(c.wsi, base, used, raw) >= used ? .written : .failed
    }

    /// Sends complete frames on a plain connection's socket, skipping lws'
    /// write path (its role, extension and stats layers cost more than the
    /// send at 10,000 connections). Safe because it runs only when lws holds
    /// nothing of its own for this socket (`lws_partial_buffered` is 0 and
    /// the peer has not begun a close); whatever the socket does not take is
    /// handed to lws as raw bytes, which it keeps, sends first and drains on
    /// POLLOUT before anything else, as for any partial write of its own.
    private func send(_ c: Connection, _ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) -> Outcome {
        var n = Glibc.send(c.plainSocket, bytes, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        if n < 0 && errno == EINTR { n = Glibc.send(c.plainSocket, bytes, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        if n == count { return .written }
        if n < 0 {
            guard errno == EAGAIN || errno == EWOULDBLOCK else { return .failed }
            n = 0
        }
        return handOver(c, bytes, count, sent: n) ? .written : .failed
    }

    /// Batching peers: the messages joined by `\n` into one frame's payload.
    private func joinBatch(_ c: Connection, into base: UnsafeMutablePointer<UInt8>, limit: Int) -> Int {
        var used = 0
        while let f = c.queue.firstPayload, used == 0 || used + 1 + f.count <= limit {
            if used > 0 {
                base[used] = 0x0A
                used += 1
            }
            (UnsafeMutableRawPointer(base) + used).copyMemory(from: f.bytes, byteCount: f.count)
            used += f.count
            c.queue.dropFirst()
        }
        return used
    }

    /// Plain peers: each message as its own complete, unmasked, final text
    /// frame (RFC 6455 §5.2), back to back, for one `LWS_WRITE_RAW`.
    private func frameAll(_ c: Connection, into base: UnsafeMutablePointer<UInt8>, limit: Int) -> Int {
        var used = 0
        while let f = c.queue.firstPayload {
            let header = WebSocketHeader.length(f.count)
            guard used == 0 || used + header + f.count <= limit else { break }
            used += WebSocketHeader.write(textLength: f.count, to: base + used)
            (UnsafeMutableRawPointer(base) + used).copyMemory(from: f.bytes, byteCount: f.count)
            used += f.count
            c.queue.dropFirst()
        }
        return used
    }
}
