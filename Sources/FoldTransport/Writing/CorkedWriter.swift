import CLibWebSockets
import FoldSystem
import Glibc

/// Performs what each connection's `WriteMachine` decides, the way the
/// fastest broadcasters write: everything queued for a connection leaves in
/// one system call, and at once when the socket has room, instead of a round
/// trip through the event loop (`lws_callback_on_writable`, an epoll_ctl, a
/// wake-up, the WRITEABLE callback, another epoll_ctl) for every delivery.
///
/// Frames are queued during a service turn (a commit's fan-out, a received
/// action); `flush()` runs when the turn's callback returns and writes each
/// connection on its list once. A turn's lone fan-out does not wait for the
/// flush: it calls `writeNow` for each connection as it queues
/// (`WebServer.fanOut`). The decisions (pacing, whether lws must wait for
/// WRITEABLE, how the bytes are framed, what a short write means) are the
/// machine's; this shell holds the buffer, the list and the counters, and
/// makes the calls.
///
/// Threading (lws' contract): service thread only, like every connection.
final class CorkedWriter {
    let pacer: WritePacer
    /// Connections with frames queued this turn, each once (`WriteMachine.enlist`).
    private var listed: [Connection] = []
    private var spare: [Connection] = []
    /// One buffer for every coalesced write; lws copies what the socket leaves.
    private let scratch: UnsafeMutableRawPointer
    let scratchSize: Int
    private let pre = Int(fs_lws_pre())
    private let buffer: WriteBuffer
    var drained: (Connection) -> Void = { _ in }
    /// `lws_write` calls and sends carrying WebSocket messages, and the messages in them (for `/metrics`).
    private(set) var writes = 0
    private(set) var messagesWritten = 0
    /// Writes the socket took only part of; the rest went to lws.
    private(set) var shortWrites = 0

    init(maxWriteBytes: Int, lingerMs: Int, schedule: @escaping (Int64, @escaping () -> Void) -> Void) {
        scratchSize = max(maxWriteBytes, 64 * 1024) + Int(fs_lws_pre()) + 16
        scratch = .allocate(byteCount: scratchSize, alignment: 16)
        buffer = WriteBuffer(base: (scratch + pre).assumingMemoryBound(to: UInt8.self), limit: scratchSize - pre - 16)
        pacer = WritePacer(lingerMs: lingerMs, schedule: schedule)
        pacer.release = { [unowned self] c in self.queued(c) }
    }

    deinit { scratch.deallocate() }

    /// A frame was queued on `c`: it joins this turn's flush list.
    @inline(__always)
    func queued(_ c: Connection) {
        if c.out.enlist() { listed.append(c) }
    }

    /// Writes every connection listed since the last flush. Called when a
    /// service callback that may have queued frames returns.
    func flush() {
        guard !listed.isEmpty else { return }
        swap(&listed, &spare)
        // One clock read per turn, not per connection; for a list long
        // enough to measure what a write costs (`Pacing.measured`), the
        // thread's CPU clock before and after (a system call each).
        let now = Pacing.now()
        let measuring = spare.count >= Pacing.measuredWrites
        let before = writes, cpu = measuring ? Pacing.threadCPU() : 0
        spare.withUnsafeBufferPointer { list in
            guard let base = list.baseAddress else { return }
            let refs = UnsafeRawPointer(base)
            for i in list.indices {
                Self.prefetch(refs, count: list.count, after: i)
                let c = list[i]
                c.out.delist()
                writeNow(c, now: now)
            }
        }
        spare.removeAll(keepingCapacity: true)
        if measuring { pacer.pacing.measured(ns: Pacing.threadCPU() &- cpu, writes: writes &- before) }
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

    /// Writes what `c` has queued now, as its machine decides.
    @inline(__always)
    func writeNow(_ c: Connection, now: UInt64) {
        let wsi = c.wsi
        switch c.out.flush(now: now, lwsHolding: { lws_partial_buffered(wsi) != 0 }, pacing: &pacer.pacing, into: buffer) {
        case .nothing: return
        case .wait(let due): pacer.wait(c, until: due)
        case .askWritable: lws_callback_on_writable(c.wsi)
        case .send(let outgoing):
            if perform(c, outgoing) == .drop {
                // Not inside this connection's callback: lws drops it on its next turn.
                lws_set_timeout(c.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            }
        }
    }

    /// The WRITEABLE callback: one write, as lws documents. Returns the callback's result.
    func writeable(_ c: Connection) -> Int32 {
        switch c.out.writable(now: Pacing.now(), pacing: &pacer.pacing, into: buffer) {
        case .nothing:
            return 0
        case .ping:
            // Never empty: lws (4.1.6 and 4.3.5) does not report an empty PONG
            // (`LWS_CALLBACK_RECEIVE_PONG`), and the echo is how the peer is heard.
            buffer.base[0] = 0x66  // "f"
            buffer.base[1] = 0x73  // "s"
            return after(c, c.out.pinged(ok: lws_write(c.wsi, buffer.base, 2, LWS_WRITE_PING) >= 0)) == .drop ? -1 : 0
        case .sendClose(let code, let reason):
            guard c.out.route != .lwsFramed else {
                // Inside HTTP/2 lws frames every message, the close too.
                var bytes = Array(reason.utf8)
                lws_close_reason(c.wsi, lws_close_status(rawValue: UInt32(code)), &bytes, bytes.count)
                return -1
            }
            // Framed and written here, then the hang-up, rather than left to
            // lws (`lws_close_reason` and -1): lws built with _DEBUG (Debian's
            // 4.1.6 and 4.3.5 are) closes a wsi twice under libuv
            // (`lws_service_fd_tsi`, "close_and_handled uv repeat test"), and
            // the second close killed the socket before lws wrote the frame.
            // Written now, the frame is in the kernel (or lws' buffer, which
            // lws flushes before it closes) ahead of the FIN.
            let reason = reason.utf8.prefix(123)
            buffer.base[0] = 0x88  // FIN, close
            buffer.base[1] = UInt8(2 + reason.count)
            buffer.base[2] = UInt8(code >> 8)
            buffer.base[3] = UInt8(code & 0xFF)
            for (i, byte) in reason.enumerated() { buffer.base[4 + i] = byte }
            let n = 4 + reason.count
            c.out.closeWritten(ok: lws_write(c.wsi, buffer.base, n, fs_lws_write_raw()) >= n)
            return -1
        case .send(let outgoing):
            return perform(c, outgoing) == .drop ? -1 : 0
        }
    }

    /// Asks for a WRITEABLE callback to send the keep-alive's PING.
    func schedulePing(_ c: Connection) {
        if c.out.pingRequested() { lws_callback_on_writable(c.wsi) }
    }

    /// Asks lws for a WRITEABLE callback (once per connection at a time).
    func request(_ c: Connection) {
        if c.out.askWritable() { lws_callback_on_writable(c.wsi) }
    }

    /// Sends one write and feeds what happened back to the machine, until it
    /// is done or the connection is to be dropped.
    private func perform(_ c: Connection, _ o: Outgoing) -> WriteMachine.AfterSend {
        // A lone message is sent from its frame, which must outlive the calls.
        defer { withExtendedLifetime(o.frame) {} }
        writes &+= 1
        messagesWritten &+= o.messages
        let result: WriteMachine.AfterSend
        switch o.via {
        case .socket:
            do throws(SystemError) {
                let n = try systemCall("send") {
                    Glibc.send(c.plainSocket, o.bytes, o.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                result = c.out.sent(n, of: o.count)
            } catch {
                result = c.out.refused(code: error.errno)
            }
        case .lwsRaw:
            result = c.out.lwsTook(ok: lws_write(c.wsi, o.bytes, o.count, fs_lws_write_raw()) >= o.count)
        case .lwsText:
            result = c.out.lwsTook(ok: lws_write(c.wsi, o.bytes, o.count, LWS_WRITE_TEXT) >= o.count)
        }
        guard case .handToLWS(let from) = result else { return after(c, result) }
        // lws keeps what the socket did not take and sends it first.
        shortWrites &+= 1
        let rest = o.count - from
        return after(c, c.out.lwsTook(ok: lws_write(c.wsi, o.bytes + from, rest, fs_lws_write_raw()) >= rest))
    }

    /// Performs what follows a write.
    @inline(__always)
    private func after(_ c: Connection, _ result: WriteMachine.AfterSend) -> WriteMachine.AfterSend {
        if case .done(let next) = result {
            if next.contains(.askWritable) { lws_callback_on_writable(c.wsi) }
            if next.contains(.drained) { drained(c) }
        }
        return result
    }
}
