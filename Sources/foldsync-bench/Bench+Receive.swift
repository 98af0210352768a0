extension Bench {
    /// One daemon message, classified by the byte after `{"type":"`.
    /// Patches are read by scanning for `"rev":` and the `t:` stamp in the title.
    @inline(__always)
    func json(_ p: Peer, _ m: UnsafePointer<UInt8>, _ n: Int, now: UInt64) {
        counters.messagesIn += 1
        if config.wire == .broadcast { return stamped(p, m, n, now: now) }
        guard n > 12, Scan.hasPrefix("{\"type\":\"", m, at: 0, to: n) else {
            counters.otherMessages += 1
            return
        }
        if p.role == .writer {
            switch m[9] {
            case UInt8(ascii: "a"): return writerAnswer(p, m, n, now: now, ack: true)
            case UInt8(ascii: "e"): return writerAnswer(p, m, n, now: now, ack: false)
            default: return
            }
        }
        switch m[9] {
        case UInt8(ascii: "p") where m[10] == UInt8(ascii: "a"):
            patch(p, m, n, now: now)
        case UInt8(ascii: "p"):
            counters.presence += 1
        case UInt8(ascii: "s"):
            snapshot(p, m, n)
        case UInt8(ascii: "a"):
            counters.acks += 1
        case UInt8(ascii: "e"):
            counters.errors += 1
            if counters.errors <= 3 { logger.warning("daemon error: \(String(decoding: UnsafeBufferPointer(start: m, count: min(n, 300)), as: UTF8.self))") }
        case UInt8(ascii: "h"):
            break
        default:
            counters.otherMessages += 1
        }
    }

    @inline(__always)
    func rev(_ m: UnsafePointer<UInt8>, _ n: Int) -> (Int, Int) {
        let at = Scan.find("\"rev\":", in: m, from: 16, to: n)
        return at < 0 ? (-1, 16) : Scan.integer(m, at: at + 6, to: n)
    }

    func snapshot(_ p: Peer, _ m: UnsafePointer<UInt8>, _ n: Int) {
        let (r, _) = rev(m, n)
        if p.ready {
            counters.resyncs += 1
        } else {
            becameReady(p)
        }
        p.lastRev = r
    }

    @inline(__always)
    func patch(_ p: Peer, _ m: UnsafePointer<UInt8>, _ n: Int, now: UInt64) {
        let (r, after) = rev(m, n)
        guard inOrder(p, r, bytes: n) else { return }
        let t = Scan.find("\"t:", in: m, from: after, to: n)
        guard t >= 0 else { return }
        record(p, m, n, stampAt: t + 3, now: now)
    }

    /// The plain broadcaster's messages: `subscribed`, or a bare `t:<ns>:<seq>:` stamp.
    /// The seq stands in for the rev: consecutive per connection, or a gap.
    @inline(__always)
    func stamped(_ p: Peer, _ m: UnsafePointer<UInt8>, _ n: Int, now: UInt64) {
        guard n > 2, m[0] == UInt8(ascii: "t"), m[1] == UInt8(ascii: ":") else {
            if Scan.hasPrefix("subscribed", m, at: 0, to: n), !p.ready { becameReady(p) } else { counters.otherMessages += 1 }
            return
        }
        let (_, colon) = Scan.integer(m, at: 2, to: n)
        guard colon < n else { return }
        let (seq, _) = Scan.integer(m, at: colon + 1, to: n)
        guard inOrder(p, seq, bytes: n) else { return }
        record(p, m, n, stampAt: 2, now: now)
    }

    /// Checks a rev (or the broadcaster's seq) against the connection's last:
    /// a duplicate is dropped, a jump counted as a gap. True when the message
    /// is a subscriber's delivery to time (then counted as a patch).
    @inline(__always)
    func inOrder(_ p: Peer, _ r: Int, bytes n: Int) -> Bool {
        if p.lastRev >= 0 {
            if r <= p.lastRev {
                counters.dups += 1
                return false
            }
            if r != p.lastRev + 1 { counters.gaps += 1 }
        }
        p.lastRev = r
        guard p.role == .subscriber else { return false }
        counters.patches += 1
        counters.patchBytes += n
        return true
    }

    /// Counts one delivery of the stamp `<ns>:<seq>:` at `m[at...]`, when its seq is in the measured window.
    @inline(__always)
    func record(_ p: Peer, _ m: UnsafePointer<UInt8>, _ n: Int, stampAt at: Int, now: UInt64) {
        let (sent, colon) = Scan.integer(m, at: at, to: n)
        guard sent >= 0, colon < n else { return }
        let (seq, _) = Scan.integer(m, at: colon + 1, to: n)
        guard seq >= measureFirstSeq, seq <= measureLastSeq else {
            counters.stale += 1
            return
        }
        counters.deliveries += 1
        p.deliveries += 1
        if counters.firstDeliveryNs == 0 { counters.firstDeliveryNs = now }
        counters.lastDeliveryNs = now
        let sentNs = UInt64(sent)
        latency.record(now > sentNs ? now - sentNs : 0)
        let scheduled = measureStartNs &+ UInt64(Double(seq - measureFirstSeq) * measureIntervalNs)
        scheduledLatency.record(now > scheduled ? now - scheduled : 0)
    }
}
