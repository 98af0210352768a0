import FoldCore
@testable import FoldTransport
import Glibc
import Testing

/// The write path's decisions, without a socket: what leaves and how it is
/// framed, short writes and a full socket, waiting for WRITEABLE, the close
/// handshake in the middle of a burst, pacing, a slow reader filling its
/// queue to the bound, and HTTP/2 and TLS keeping lws' framing.
@Suite struct WriteMachineTests {
    /// A framing buffer with headroom in front, as the writer's.
    final class Buffer {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024 + 32, alignment: 16)
        var write: WriteBuffer { WriteBuffer(base: (raw + 16).assumingMemoryBound(to: UInt8.self), limit: 64 * 1024) }
        deinit { raw.deallocate() }
    }

    let buffer = Buffer()
    var pacing = Pacing(lingerMs: 20)

    /// `#expect` cannot look into a non-copyable value: the condition is evaluated first.
    func check(_ condition: @autoclosure () -> Bool, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let ok = condition()
        #expect(ok, comment, sourceLocation: sourceLocation)
    }

    static func frame(_ text: String) -> OutFrame { OutFrame(Array(text.utf8)) }

    static func bytes(_ o: Outgoing) -> [UInt8] { Array(UnsafeBufferPointer(start: o.bytes, count: o.count)) }

    /// A server frame (RFC 6455 §5.2): FIN + text, unmasked, the length, the payload.
    static func wire(_ text: String) -> [UInt8] { [0x81, UInt8(text.utf8.count)] + Array(text.utf8) }

    mutating func flush(_ m: inout WriteMachine, now: UInt64 = 1_000_000_000, lwsHolding: Bool = false) -> WriteMachine.FlushStep {
        m.flush(now: now, lwsHolding: { lwsHolding }, pacing: &pacing, into: buffer.write)
    }

    mutating func writable(_ m: inout WriteMachine, now: UInt64 = 1_000_000_000) -> WriteMachine.WritableStep {
        m.writable(now: now, pacing: &pacing, into: buffer.write)
    }

    @Test mutating func aLoneMessageLeavesInPlaceWithItsHeaderInItsHeadroom() {
        var m = WriteMachine(route: .socket, batching: false)
        let f = Self.frame("hello")
        check(m.push(f))
        guard case .send(let o) = flush(&m) else { Issue.record("nothing sent"); return }
        #expect(o.via == .socket && o.messages == 1)
        #expect(o.bytes == f.payload - 2, "written from the frame itself, not copied")
        #expect(Self.bytes(o) == Self.wire("hello"))
        check(m.sent(o.count, of: o.count) == .done([]))
        check(m.queue.isEmpty)
    }

    @Test mutating func severalMessagesLeaveInOneWrite() {
        var plain = WriteMachine(route: .socket, batching: false)
        var batching = WriteMachine(route: .socket, batching: true)
        for t in ["a", "bb", "ccc"] {
            _ = plain.push(Self.frame(t))
            _ = batching.push(Self.frame(t))
        }
        guard case .send(let o) = flush(&plain) else { Issue.record("nothing sent"); return }
        #expect(o.messages == 3)
        #expect(Self.bytes(o) == Self.wire("a") + Self.wire("bb") + Self.wire("ccc"))
        guard case .send(let b) = flush(&batching) else { Issue.record("nothing sent"); return }
        #expect(b.messages == 3)
        #expect(Self.bytes(b) == Self.wire("a\nbb\nccc"), "one newline-joined frame")
    }

    @Test mutating func whatTheSocketDoesNotTakeGoesToLWSAndTheRestWaitsForWriteable() {
        var m = WriteMachine(route: .socket, batching: false)
        _ = m.push(Self.frame("one"))
        _ = m.push(Self.frame("two"))
        guard case .send(let o) = flush(&m) else { Issue.record("nothing sent"); return }
        check(m.sent(3, of: o.count) == .handToLWS(from: 3))
        // lws took the rest; nothing more is queued, so nothing follows.
        check(m.lwsTook(ok: true) == .done([]))
        // A frame queued while lws still holds part of the last write waits for WRITEABLE.
        _ = m.push(Self.frame("three"))
        check(m.enlist())
        m.delist()
        guard case .askWritable = flush(&m, lwsHolding: true) else { Issue.record("wrote beside lws' unsent bytes"); return }
        check(!m.enlist(), "WRITEABLE writes it: not listed again")
        guard case .nothing = flush(&m) else { Issue.record("asked twice"); return }
        guard case .send(let next) = writable(&m) else { Issue.record("WRITEABLE wrote nothing"); return }
        #expect(Self.bytes(next) == Self.wire("three"))
    }

    @Test mutating func aFullSocketHandsEverythingToLWSAndAGonePeerIsDropped() {
        var m = WriteMachine(route: .socket, batching: false)
        _ = m.push(Self.frame("x"))
        _ = m.push(Self.frame("y"))
        guard case .send = flush(&m) else { Issue.record("nothing sent"); return }
        check(m.refused(code: EAGAIN) == .handToLWS(from: 0))
        check(m.lwsTook(ok: true) == .done([]))
        _ = m.push(Self.frame("z"))
        guard case .send = flush(&m) else { Issue.record("nothing sent"); return }
        check(m.refused(code: EPIPE) == .drop)
        check(m.failed)
        // lws failing the hand-over is the same.
        var n = WriteMachine(route: .socket, batching: false)
        _ = n.push(Self.frame("x"))
        guard case .send = flush(&n) else { Issue.record("nothing sent"); return }
        check(n.sent(0, of: 3) == .handToLWS(from: 0))
        check(n.lwsTook(ok: false) == .drop)
    }

    @Test mutating func aCloseInTheMiddleOfABurstGoesAfterWhatIsQueuedAndNothingFollowsIt() {
        var m = WriteMachine(route: .socket, batching: false)
        _ = m.push(Self.frame("1"))
        _ = m.push(Self.frame("2"))
        check(m.closeRequested(code: 1001, reason: "going away", flush: true))
        check(!m.closeRequested(code: 1000, reason: "again", flush: true), "the first close stands")
        check(!m.push(Self.frame("3")), "nothing is queued behind the close")
        check(m.askWritable())
        guard case .send(let o) = writable(&m) else { Issue.record("the queue was not written first"); return }
        #expect(o.messages == 2)
        check(m.sent(o.count, of: o.count) == .done(.askWritable), "the close frame's turn is asked for")
        guard case .sendClose(let code, let reason) = writable(&m) else { Issue.record("no close frame"); return }
        #expect(code == 1001 && reason == "going away")
        // Without flushing, what is queued is dropped and the close goes at once.
        var now = WriteMachine(route: .socket, batching: false)
        _ = now.push(Self.frame("1"))
        check(now.closeRequested(code: 1008, reason: String(repeating: "r", count: 200), flush: false))
        check(now.askWritable())
        guard case .sendClose(_, let cut) = writable(&now) else { Issue.record("no close frame"); return }
        #expect(cut.utf8.count == 120, "a close reason fits a control frame")
    }

    /// Our close frame is written by the shell, not lws, and nothing follows it.
    @Test mutating func afterOurCloseFrameNothingFollows() {
        var m = WriteMachine(route: .socket, batching: false)
        check(m.closeRequested(code: 1001, reason: "going away", flush: true))
        check(m.askWritable())
        guard case .sendClose = writable(&m) else { Issue.record("no close frame"); return }
        m.closeWritten(ok: true)
        check(m.phase == .closeSent && m.isClosing)
        check(!m.push(Self.frame("late")), "nothing is queued behind the close frame")
        check(m.askWritable())
        guard case .nothing = writable(&m) else { Issue.record("a second close frame"); return }
        check(!m.pingRequested())
        m.lwsClosed()
        check(m.phase == .closed(peerClosed: false, failed: false))
        // A close frame that could not be written: the peer is gone.
        var gone = WriteMachine(route: .socket, batching: false)
        check(gone.closeRequested(code: 1001, reason: "bye", flush: false))
        check(gone.askWritable())
        guard case .sendClose = writable(&gone) else { Issue.record("no close frame"); return }
        gone.closeWritten(ok: false)
        check(gone.failed)
    }

    @Test mutating func nothingFollowsAPeersClose() {
        var m = WriteMachine(route: .socket, batching: false)
        _ = m.push(Self.frame("late"))
        m.peerBeganClose()
        guard case .nothing = flush(&m) else { Issue.record("wrote after the peer's close"); return }
        check(m.askWritable())
        guard case .nothing = writable(&m) else { Issue.record("wrote after the peer's close"); return }
        check(!m.pingRequested())
        m.lwsClosed()
        check(!m.askWritable(), "a closed connection asks lws for nothing")
    }

    /// The close only moves forward, and what ended it is still read after lws closed.
    @Test mutating func theCloseMovesForwardAndRemembersWhatEndedIt() {
        var m = WriteMachine(route: .socket, batching: false)
        check(m.phase == .open && !m.isClosing)
        check(m.closeRequested(code: 1001, reason: "bye", flush: true))
        check(m.phase == .closing(code: 1001, reason: "bye") && m.isClosing)
        m.peerBeganClose()
        check(m.phase == .peerClosing, "the peer's close overtakes ours: lws answers it")
        check(!m.closeRequested(code: 1000, reason: "late", flush: true))
        _ = m.push(Self.frame("x"))
        check(m.askWritable())
        guard case .nothing = writable(&m) else { Issue.record("a close frame of ours after the peer's"); return }
        m.lwsClosed()
        check(m.phase == .closed(peerClosed: true, failed: false) && m.peerClosing && !m.failed && m.closed)
        m.peerBeganClose()
        check(m.closed, "nothing reopens it")

        var f = WriteMachine(route: .socket, batching: false)
        _ = f.push(Self.frame("y"))
        guard case .send = flush(&f) else { Issue.record("nothing sent"); return }
        check(f.refused(code: EPIPE) == .drop)
        check(f.phase == .failed && f.isClosing)
        check(!f.push(Self.frame("z")), "nothing is queued for a peer that is gone")
        check(!f.pingRequested())
        f.lwsClosed()
        check(f.phase == .closed(peerClosed: false, failed: true) && f.failed && !f.peerClosing)

        var p = WriteMachine(route: .socket, batching: false)
        p.peerBeganClose()
        _ = p.push(Self.frame("w"))
        check(p.askWritable())
        _ = writable(&p)
        check(p.phase == .peerClosing, "a failure after the peer's close is still the peer's close")
    }

    /// Writes 40 messages in 50 ms (800/s, over the hot rate), each at once; the time after them, or nil on a failure.
    mutating func heat(_ m: inout WriteMachine) -> UInt64? {
        var now: UInt64 = 1_000_000_000
        for _ in 0..<40 {
            _ = m.push(Self.frame("m"))
            guard case .send(let o) = flush(&m, now: now) else { Issue.record("not written at once"); return nil }
            check(m.sent(o.count, of: o.count) == .done([]))
            now += 1_300_000
        }
        return now
    }

    @Test mutating func aBusyConnectionIsPacedAndHandedBackWhenItsWaitIsOver() {
        var m = WriteMachine(route: .socket, batching: false)
        guard let now = heat(&m) else { return }
        check(m.pace.paced)
        _ = m.push(Self.frame("m"))
        _ = m.push(Self.frame("n"))
        guard case .wait(let due) = flush(&m, now: now) else { Issue.record("a hot connection was not paced"); return }
        check(due == m.pace.lastWriteNs + 20_000_000)
        check(!m.enlist(), "the timer hands it back: not listed meanwhile")
        guard case .nothing = flush(&m, now: now) else { Issue.record("written while waiting"); return }
        check(m.waitOver())
        guard case .send(let o) = flush(&m, now: due) else { Issue.record("not written after the wait"); return }
        #expect(o.messages == 2, "what gathered leaves in one write")
    }

    @Test mutating func aReplyLeavesAtOnceFromAPacedConnectionWithWhatGatheredBeforeIt() {
        var m = WriteMachine(route: .socket, batching: false)
        guard let now = heat(&m) else { return }
        check(m.pace.paced)
        // A broadcast waits for the gather ...
        _ = m.push(Self.frame("patch"))
        guard case .wait = flush(&m, now: now) else { Issue.record("a hot connection was not paced"); return }
        check(!m.enlist())
        // ... until an answer to this client is queued: then both leave now, in order.
        _ = m.push(Self.frame("ack"), reply: true)
        check(m.enlist(), "a reply puts the connection back on this turn's list")
        guard case .send(let o) = flush(&m, now: now) else { Issue.record("the reply waited for the pacer"); return }
        #expect(o.messages == 2)
        #expect(Self.bytes(o) == Self.wire("patch") + Self.wire("ack"))
        check(m.sent(o.count, of: o.count) == .done([]))
        #expect(m.replyDepth == 0)
        // With the reply written, the next broadcast is paced again.
        _ = m.push(Self.frame("patch"))
        guard case .wait = flush(&m, now: now) else { Issue.record("pacing did not resume after the reply"); return }
    }

    @Test mutating func aSlowReaderFillsItsQueueUpToTheBound() {
        // The socket is full and lws holds the rest: everything else waits in the queue.
        var m = WriteMachine(route: .socket, batching: false)
        _ = m.push(Self.frame("first"))
        guard case .send = flush(&m) else { Issue.record("nothing sent"); return }
        check(m.refused(code: EAGAIN) == .handToLWS(from: 0))
        _ = m.lwsTook(ok: true)
        let bound = QueueBound(frames: 8, bytes: 1 << 20)
        var admitted = 0
        for i in 0..<20 {
            let f = Self.frame("change \(i)")
            guard bound.admits(queuedFrames: m.queue.count, queuedBytes: m.queue.bytes, adding: f.count) else { break }
            _ = m.push(f)
            admitted += 1
            if case .askWritable = flush(&m, lwsHolding: true) {} else if m.writableAsked {} else { Issue.record("not waiting for WRITEABLE") }
        }
        #expect(admitted == 8, "the ninth frame is the overflow")
        let (count, bytes) = (m.queue.count, m.queue.bytes)
        #expect(count == 8)
        #expect(bytes == (0..<8).reduce(0) { $0 + "change \($1)".utf8.count })
    }

    @Test mutating func http2LetsLWSFrameEachMessageInItsOwnWriteable() {
        var m = WriteMachine(route: .lwsFramed, batching: true)
        for t in ["a", "b"] { _ = m.push(Self.frame(t)) }
        guard case .askWritable = flush(&m) else { Issue.record("wrote outside WRITEABLE"); return }
        guard case .send(let o) = writable(&m) else { Issue.record("nothing sent"); return }
        #expect(o.via == .lwsText && o.messages == 1)
        #expect(Self.bytes(o) == Array("a".utf8), "lws writes the header")
        check(m.lwsTook(ok: true) == .done(.askWritable), "the next message gets its own WRITEABLE")
    }

    @Test mutating func tlsSendsOurFramesRawOrOneBatchAsTextThroughLWS() {
        var raw = WriteMachine(route: .lwsRaw, batching: false)
        var text = WriteMachine(route: .lwsRaw, batching: true)
        var lone = WriteMachine(route: .lwsRaw, batching: false)
        for t in ["a", "b"] {
            _ = raw.push(Self.frame(t))
            _ = text.push(Self.frame(t))
        }
        _ = lone.push(Self.frame("solo"))
        guard case .send(let r) = flush(&raw) else { Issue.record("nothing sent"); return }
        #expect(r.via == .lwsRaw && Self.bytes(r) == Self.wire("a") + Self.wire("b"))
        guard case .send(let t) = flush(&text) else { Issue.record("nothing sent"); return }
        #expect(t.via == .lwsText && Self.bytes(t) == Array("a\nb".utf8))
        guard case .send(let l) = flush(&lone) else { Issue.record("nothing sent"); return }
        #expect(l.via == .lwsText && Self.bytes(l) == Array("solo".utf8))
    }

    @Test mutating func thePingGoesInWriteableAndWhatIsQueuedFollows() {
        var m = WriteMachine(route: .socket, batching: false)
        check(m.pingRequested())
        _ = m.push(Self.frame("after"))
        guard case .ping = writable(&m) else { Issue.record("no ping"); return }
        check(m.pinged(ok: true) == .done(.askWritable))
        guard case .send(let o) = writable(&m) else { Issue.record("the queue did not follow"); return }
        #expect(Self.bytes(o) == Self.wire("after"))
        check(m.pingRequested())
        _ = writable(&m)
        check(m.pinged(ok: false) == .drop)
    }

    @Test mutating func aResyncIsToldWhenItsQueueHasDrained() {
        var m = WriteMachine(route: .socket, batching: false)
        _ = m.push(Self.frame("stale"))
        m.discardQueued()
        _ = m.push(Self.frame("snapshot"))
        guard case .send(let o) = flush(&m) else { Issue.record("nothing sent"); return }
        #expect(Self.bytes(o) == Self.wire("snapshot"))
        check(m.sent(o.count, of: o.count) == .done(.drained))
        _ = m.push(Self.frame("more"))
        guard case .send(let p) = flush(&m) else { Issue.record("nothing sent"); return }
        check(m.sent(p.count, of: p.count) == .done([]), "told once")
    }
}
