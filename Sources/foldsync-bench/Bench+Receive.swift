extension Bench {
    /// One daemon message, classified by the byte after `{"type":"`.
    /// Patches are read by scanning for `"rev":` and the `t:` stamp in the title.
    @inline(__always)
    func json(_ p: Peer, _ m: UnsafePointer<UInt8>, _ n: Int, now: UInt64) {
        counters.messagesIn += 1
        guard n > 12, Scan.hasPrefix("{\"type\":\"", m, at: 0, to: n) else {
            counters.otherMessages += 1
            return
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
        if p.lastRev >= 0 {
            if r <= p.lastRev {
                counters.dups += 1
                return
            }
            if r != p.lastRev + 1 { counters.gaps += 1 }
        }
        p.lastRev = r
        guard p.role == .subscriber else { return }
        counters.patches += 1
        counters.patchBytes += n
        let t = Scan.find("\"t:", in: m, from: after, to: n)
        guard t >= 0 else { return }
        let (sent, colon) = Scan.integer(m, at: t + 3, to: n)
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
