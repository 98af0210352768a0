import Glibc

/// One connection's outgoing side as a machine: its queue, pacing, whether a
/// WRITEABLE callback is asked for, the close handshake, and every decision
/// about when and how its frames leave. Inputs are its methods (a frame
/// queued, a flush, WRITEABLE, what a send did, a close asked for, the
/// pacer's timer); each returns the effect for the shell (`CorkedWriter`) to
/// perform: send these bytes, hand the rest to lws, ask for WRITEABLE, send
/// the close frame, drop the connection. It performs no I/O and reads no
/// lws state, so its tests open no socket.
///
/// Why sending beside lws is safe: the machine sends on the socket only when
/// lws holds nothing of its own for it (`lwsHolding` false, the peer has not
/// begun a close); whatever the socket does not take is handed to lws as raw
/// bytes, which `lws_issue_raw` keeps in the connection's `buflist_out`,
/// appends any later write behind, and drains before PONG, CLOSE or our
/// WRITEABLE callback (`lws_handle_POLLOUT_event`, priority 1: the same in
/// lws 4.1.6 and 4.3.5, read at both tags; `lws_partial_buffered` is
/// `lws_has_buffered_out` in both). So a partial kernel write cannot cut a
/// frame; `CorkedWriteTests` proves it on each release's lws.
struct WriteMachine: ~Copyable {
    /// Who frames the messages and who sends them.
    enum Route {
        /// Plain TCP: we frame, and send on the socket ourselves.
        case socket
        /// TLS on the connection's own socket: we frame, lws encrypts and sends.
        case lwsRaw
        /// WebSocket inside an HTTP/2 stream: lws frames each message, one per WRITEABLE.
        case lwsFramed
    }

    let route: Route
    /// The peer negotiated `foldsync.v1.batch`: queued messages may leave
    /// as one newline-separated frame.
    let batching: Bool
    private(set) var queue = FrameQueue()
    private(set) var pace = PaceState()
    /// On the writer's list for this turn's flush.
    private(set) var onFlushList = false
    /// A WRITEABLE callback is asked for (one at a time).
    private(set) var writableAsked = false
    /// How far the connection's close has gone (one state: only forward).
    private(set) var phase: Phase = .open
    /// The keep-alive's PING is to go out in the next WRITEABLE.
    private(set) var pingDue = false
    /// Set by `discardQueued` (a resync): the shell hears when the queue
    /// empties again, and only then, so the hot path reports nothing.
    private(set) var drainWatched = false
    /// Frames from the head of the queue through the last direct reply (an
    /// ack, an error, a snapshot asked for). While one is queued the
    /// connection is not paced: pacing gathers a heavy stream, and a client's
    /// own answer must not wait for the gather (a writer on a busy board
    /// would otherwise get each ack up to a linger late, and write that much
    /// slower). A client gets at most a write per answer it asked for.
    private(set) var replyDepth = 0

    /// The close, where it stands: open; a close asked for (its frame goes
    /// once the queue is written); our close frame written (the shell hangs
    /// up); the peer's close frame came (lws answers
    /// it, and nothing of ours may follow); a write failed (the peer is
    /// gone); lws closed the connection, remembering which of those ended it.
    enum Phase: Equatable {
        case open
        case closing(code: UInt16, reason: String)
        case closeSent
        case peerClosing
        case failed
        case closed(peerClosed: Bool, failed: Bool)
    }

    init(route: Route, batching: Bool) {
        self.route = route
        self.batching = batching
    }

    /// Past open: nothing more is queued.
    var isClosing: Bool { phase != .open }
    /// The peer began the close (before lws closed, or it was what ended it).
    var peerClosing: Bool { phase == .peerClosing || phase == .closed(peerClosed: true, failed: false) }
    /// A write failed: the peer is gone.
    var failed: Bool { phase == .failed || phase == .closed(peerClosed: false, failed: true) }
    /// lws closed the connection.
    var closed: Bool { if case .closed = phase { true } else { false } }

    // MARK: Inputs from the daemon

    /// Queues a frame; false once closing (nothing may follow the close).
    /// `reply`: an answer to this client, written without pacing's wait.
    @inline(__always)
    mutating func push(_ frame: OutFrame, reply: Bool = false) -> Bool {
        guard phase == .open else { return false }
        queue.push(frame)
        if reply {
            replyDepth = queue.count
            // Out of the pacer's hands now; its timer, when it comes, finds the queue written.
            pace.waiting = false
        }
        return true
    }

    /// Whether the shell should put the connection on this turn's flush
    /// list (and it is then on it), unless something else writes it later
    /// anyway: the pacer's timer or lws' WRITEABLE callback.
    @inline(__always)
    mutating func enlist() -> Bool {
        if onFlushList || pace.waiting || writableAsked { return false }
        onFlushList = true
        return true
    }

    /// Taken off the flush list, as the shell's flush reaches it.
    @inline(__always)
    mutating func delist() { onFlushList = false }

    /// Drops what is queued and not yet written (conflation: the caller
    /// replaces it with a snapshot); the shell hears when that has left.
    mutating func discardQueued() {
        queue.removeAll()
        replyDepth = 0
        drainWatched = true
    }

    /// A close was asked for: after what is queued, or at once when `flush`
    /// is false. False when one was asked for already. The shell then asks
    /// for WRITEABLE (`askWritable`), where the close frame goes out.
    mutating func closeRequested(code: UInt16, reason: String, flush: Bool) -> Bool {
        guard phase == .open else { return false }
        if !flush { queue.removeAll() }
        phase = .closing(code: code, reason: String(reason.utf8.prefix(120)) ?? "")
        return true
    }

    /// The keep-alive wants a PING out: true when the shell must ask for WRITEABLE.
    mutating func pingRequested() -> Bool {
        guard phase == .open else { return false }
        pingDue = true
        return askWritable()
    }

    /// Marks a WRITEABLE callback as asked for; true when the shell must ask
    /// lws (not asked already, not closed).
    @inline(__always)
    mutating func askWritable() -> Bool {
        guard !closed, !writableAsked else { return false }
        writableAsked = true
        return true
    }

    // MARK: Inputs from lws and the clock

    mutating func peerBeganClose() {
        switch phase {
        case .open, .closing, .closeSent: phase = .peerClosing
        case .peerClosing, .failed, .closed: break
        }
    }

    mutating func lwsClosed() {
        guard !closed else { return }
        phase = .closed(peerClosed: phase == .peerClosing, failed: phase == .failed)
    }

    /// The pacer's timer: the wait is over. True when the shell should enlist it for a flush.
    mutating func waitOver() -> Bool {
        pace.waiting = false
        return !closed && !queue.isEmpty
    }

    /// What writing now decided.
    enum FlushStep {
        case nothing
        /// Pacing: write it at this time (the shell's timer hands it back).
        case wait(until: UInt64)
        /// Wait for WRITEABLE (lws holds part of an earlier write, or frames every message itself).
        case askWritable
        case send(Outgoing)
    }

    /// Write what is queued now (a flush, or a turn's lone fan-out), unless
    /// something else writes it later: the pacer, or lws' WRITEABLE callback.
    /// `lwsHolding`: whether lws keeps unsent bytes of its own for this
    /// connection, asked only when a write would otherwise go out now;
    /// then WRITEABLE writes it, so lws never buffers more than one write per
    /// connection and the queue's bound stays the daemon's.
    @inline(__always)
    mutating func flush(now: UInt64, lwsHolding: () -> Bool, pacing: inout Pacing, into buffer: WriteBuffer) -> FlushStep {
        switch phase {
        case .open, .closing: break
        case .closeSent, .peerClosing, .failed, .closed: return .nothing
        }
        guard !writableAsked, !pace.waiting, !queue.isEmpty else { return .nothing }
        if replyDepth == 0, let due = pacing.hold(&pace, now: now) { return .wait(until: due) }
        guard route != .lwsFramed, !lwsHolding() else { return askWritable() ? .askWritable : .nothing }
        return .send(take(into: buffer, now: now, pacing: &pacing))
    }

    /// What a WRITEABLE callback decided.
    enum WritableStep {
        case nothing
        /// The keep-alive's PING (lws frames control messages itself); `pinged` follows.
        case ping
        /// Everything queued is written: the shell writes the close frame
        /// (`closeWritten` follows) and hangs up.
        case sendClose(code: UInt16, reason: String)
        case send(Outgoing)
    }

    /// lws' WRITEABLE callback: one write, as lws documents.
    mutating func writable(now: UInt64, pacing: inout Pacing, into buffer: WriteBuffer) -> WritableStep {
        writableAsked = false
        // lws is answering the peer's close, or ours is out: no frame may follow.
        if phase == .peerClosing || phase == .closeSent { return .nothing }
        // Here lws holds nothing unsent, so the PING cannot cut into a frame of ours.
        if pingDue && phase == .open {
            pingDue = false
            return .ping
        }
        if queue.isEmpty {
            guard case .closing(let code, let reason) = phase else { return .nothing }
            return .sendClose(code: code, reason: reason)
        }
        if pace.waiting { return .nothing }
        return .send(take(into: buffer, now: now, pacing: &pacing))
    }

    /// Our close frame went out (or not: the peer is gone); either way the
    /// connection is dropped (lws flushes what it holds of the frame first).
    mutating func closeWritten(ok: Bool) {
        guard ok else { _ = fail(); return }
        if case .closing = phase { phase = .closeSent }
    }

    /// The PING went out (or not): what is queued follows on the next WRITEABLE.
    mutating func pinged(ok: Bool) -> AfterSend {
        guard ok else { return fail() }
        return .done(queue.isEmpty ? [] : next([]))
    }

    /// What follows a send.
    enum AfterSend: Equatable {
        /// Written (or handed to lws): these follow.
        case done(Next)
        /// The socket took only `from` bytes (0: none, it was full): lws takes the rest.
        case handToLWS(from: Int)
        /// The peer is gone: drop the connection.
        case drop
    }

    /// What the shell does once a write is done.
    struct Next: OptionSet, Equatable {
        let rawValue: UInt8
        /// Ask lws for WRITEABLE: more is queued, or the close frame is due.
        static let askWritable = Next(rawValue: 1)
        /// The queue emptied after `discardQueued`: tell the delegate.
        static let drained = Next(rawValue: 2)
    }

    /// The socket took `n` of the `count` bytes of an `Outgoing` routed `.socket`.
    @inline(__always)
    mutating func sent(_ n: Int, of count: Int) -> AfterSend {
        n >= count ? .done(written()) : .handToLWS(from: n)
    }

    /// The socket refused the send with `errno`: full (lws takes it all and
    /// sends it on POLLOUT), or the peer is gone.
    mutating func refused(code: Int32) -> AfterSend {
        code == EAGAIN || code == EWOULDBLOCK ? .handToLWS(from: 0) : fail()
    }

    /// lws took the bytes (a `.lwsRaw` or `.lwsText` send, or a hand-over), or failed.
    @inline(__always)
    mutating func lwsTook(ok: Bool) -> AfterSend {
        ok ? .done(written()) : fail()
    }

    private mutating func fail() -> AfterSend {
        // The peer's close, when it came first, is what ended it.
        if phase != .peerClosing && !closed { phase = .failed }
        return .drop
    }

    @inline(__always)
    private mutating func written() -> Next {
        var n: Next = []
        if queue.isEmpty {
            if case .closing = phase { n = next(n) }
            if drainWatched {
                drainWatched = false
                n.insert(.drained)
            }
        } else {
            n = next(n)
        }
        return n
    }

    @inline(__always)
    private mutating func next(_ n: Next) -> Next {
        askWritable() ? n.union(.askWritable) : n
    }

    // MARK: Framing

    /// Takes as much of the queue as one write carries: one message in place
    /// (lws or we write its header into its own headroom), or several framed
    /// into the shell's buffer, as complete frames or, for a batching peer,
    /// one newline-joined frame. Counts the write for pacing.
    private mutating func take(into buffer: WriteBuffer, now: UInt64, pacing: inout Pacing) -> Outgoing {
        let out = frame(into: buffer)
        pacing.wrote(&pace, messages: out.messages, now: now)
        replyDepth = max(0, replyDepth - out.messages)
        return out
    }

    private mutating func frame(into buffer: WriteBuffer) -> Outgoing {
        let first = queue.first!
        // One message, or one too big to share a buffer: it leaves alone, in place.
        let inPlace = queue.count == 1 || first.count + 14 >= buffer.limit
        if inPlace || route == .lwsFramed {
            queue.dropFirst()
            guard route == .socket else {
                return Outgoing(via: .lwsText, bytes: first.payload, count: first.count, messages: 1, frame: first)
            }
            let h = WebSocketHeader.length(first.count)
            _ = WebSocketHeader.write(textLength: first.count, to: first.payload - h)
            return Outgoing(via: .socket, bytes: first.payload - h, count: h + first.count, messages: 1, frame: first)
        }
        let base = buffer.base
        let before = queue.count
        if batching {
            let used = joinBatch(into: base, limit: buffer.limit)
            // lws frames it over TLS; on a plain socket the header goes just in front.
            guard route == .socket else {
                return Outgoing(via: .lwsText, bytes: base, count: used, messages: before - queue.count, frame: nil)
            }
            let h = WebSocketHeader.length(used)
            _ = WebSocketHeader.write(textLength: used, to: base - h)
            return Outgoing(via: .socket, bytes: base - h, count: h + used, messages: before - queue.count, frame: nil)
        }
        let used = frameAll(into: base, limit: buffer.limit)
        return Outgoing(via: route == .socket ? .socket : .lwsRaw, bytes: base, count: used,
                        messages: before - queue.count, frame: nil)
    }

    /// Batching peers: the messages joined by `\n` into one frame's payload.
    private mutating func joinBatch(into base: UnsafeMutablePointer<UInt8>, limit: Int) -> Int {
        var used = 0
        while let f = queue.firstPayload, used == 0 || used + 1 + f.count <= limit {
            if used > 0 {
                base[used] = 0x0A
                used += 1
            }
            (UnsafeMutableRawPointer(base) + used).copyMemory(from: f.bytes, byteCount: f.count)
            used += f.count
            queue.dropFirst()
        }
        return used
    }

    /// Plain peers: each message as its own complete, unmasked, final text
    /// frame (RFC 6455 §5.2), back to back.
    private mutating func frameAll(into base: UnsafeMutablePointer<UInt8>, limit: Int) -> Int {
        var used = 0
        while let f = queue.firstPayload {
            let header = WebSocketHeader.length(f.count)
            guard used == 0 || used + header + f.count <= limit else { break }
            used += WebSocketHeader.write(textLength: f.count, to: base + used)
            (UnsafeMutableRawPointer(base) + used).copyMemory(from: f.bytes, byteCount: f.count)
            used += f.count
            queue.dropFirst()
        }
        return used
    }
}

/// The shell's buffer that several messages are framed into: `base` has at
/// least 14 bytes of headroom in front (a frame header) and `limit` bytes after.
struct WriteBuffer {
    let base: UnsafeMutablePointer<UInt8>
    let limit: Int
}

/// One write the shell performs: bytes, and who sends them.
struct Outgoing {
    enum Via {
        /// `send` on the socket; what it does not take goes to lws raw.
        case socket
        /// `lws_write` raw: complete frames of ours.
        case lwsRaw
        /// `lws_write` text: lws writes the header into the headroom in front.
        case lwsText
    }

    let via: Via
    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int
    let messages: Int
    /// The frame a lone message is sent from, alive until the send is done.
    let frame: OutFrame?
}
