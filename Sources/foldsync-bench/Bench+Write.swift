import FoldCore

/// What writer mode measured: acknowledged changes per second from every
/// writer, each ack sent by a daemon after its commit, and the time from
/// sending an action to its ack.
struct WriteResult {
    var seconds = 0.0
    var sent = 0
    var acks = 0
    var errors = 0
    var unanswered = 0
    var p50 = 0.0, p99 = 0.0, max = 0.0
    var acksPerSecond: Double { seconds > 0 ? Double(acks) / seconds : 0 }
}

extension Bench {
    /// Every writer keeps `window` actions in flight for `seconds`, then the
    /// answers still due get a bounded grace.
    func write(seconds: Double) -> WriteResult {
        counters = Counters()
        latency.reset()
        let start = System.nowNs()
        let end = start + UInt64(seconds * 1e9)
        writing = true
        for p in peers where p.role == .writer && p.state == .open { fill(p) }
        run(until: { System.nowNs() >= end }, deadlineNs: end)
        writing = false
        let sendEnd = System.nowNs()
        run(until: { peers.allSatisfy { $0.sentAt.isEmpty || $0.state != .open } }, deadlineNs: sendEnd + UInt64(max(config.grace, 5) * 1e9))
        var r = WriteResult()
        r.seconds = Double(sendEnd - start) / 1e9
        r.sent = peers.reduce(0) { $0 + $1.writeSeq }
        r.acks = counters.acks
        r.errors = counters.errors
        r.unanswered = peers.reduce(0) { $0 + $1.sentAt.count }
        r.p50 = latency.percentileMs(0.50)
        r.p99 = latency.percentileMs(0.99)
        r.max = latency.maxMs
        return r
    }

    /// Tops the writer's window up.
    func fill(_ p: Peer) {
        guard writing, p.state == .open else { return }
        while p.sentAt.count < config.window { appendWrite(p) }
        flush(p)
    }

    /// Seq n of writer k: `setTitle` on its own section `s<k mod sections>`
    /// titled `w<k>:<n>` (always a change); on the shared board every
    /// fourth is an `expand` of some section instead (the accordion at work).
    func appendWrite(_ p: Peer) {
        let seq = p.writeSeq
        p.writeSeq += 1
        action.removeAll(keepingCapacity: true)
        let sections = writerSections
        if config.sharedBoard && seq % 4 == 3 {
            JSONWriter.appendRaw("{\"type\":\"expand\",\"section\":\"s", to: &action)
            JSONWriter.appendInt((seq / 4 + p.slot) % sections, to: &action)
        } else {
            JSONWriter.appendRaw("{\"type\":\"setTitle\",\"section\":\"s", to: &action)
            JSONWriter.appendInt(p.slot % sections, to: &action)
            JSONWriter.appendRaw("\",\"title\":\"w", to: &action)
            JSONWriter.appendInt(p.slot, to: &action)
            action.append(UInt8(ascii: ":"))
            JSONWriter.appendInt(seq, to: &action)
        }
        JSONWriter.appendRaw("\",\"board\":", to: &action)
        JSONWriter.appendString(p.writeBoard, to: &action)
        JSONWriter.appendRaw(",\"id\":\"", to: &action)
        JSONWriter.appendInt(seq, to: &action)
        if config.keys {
            // As the libraries make them: a client id (this run's and the writer's) and a counter.
            JSONWriter.appendRaw("\",\"key\":\"", to: &action)
            action += keyPrefix
            JSONWriter.appendInt(p.slot, to: &action)
            action.append(UInt8(ascii: "-"))
            JSONWriter.appendInt(seq, to: &action)
        }
        JSONWriter.appendRaw("\"}", to: &action)
        p.sentAt[seq] = System.nowNs()
        WebSocketFrame.append(opcode: WebSocketFrame.text, payload: action, mask: p.mask, to: &p.tx)
    }

    /// Sections of the writers' boards: one per writer on the shared board, so each owns one.
    var writerSections: Int { config.sharedBoard ? max(config.writers, 10) : 10 }

    /// An `ack` or `error` for a writer: `"id":"<seq>"`, and an ack's `"rev":`.
    func writerAnswer(_ p: Peer, _ m: UnsafePointer<UInt8>, _ n: Int, now: UInt64, ack: Bool) {
        let at = Scan.find("\"id\":\"", in: m, from: 9, to: n)
        let seq = at < 0 ? -1 : Scan.integer(m, at: at + 6, to: n).0
        if let sent = p.sentAt.removeValue(forKey: seq) {
            if ack { latency.record(now > sent ? now - sent : 0) }
        }
        if ack {
            counters.acks += 1
            let (r, _) = rev(m, n)
            p.ackedRevs.append(r)
            let expand = config.sharedBoard && seq % 4 == 3
            if !expand && r > p.titleAt.rev { p.titleAt = (r, seq) }
        } else {
            counters.errors += 1
            if counters.errors <= 3 { logger.warning("daemon error: \(String(decoding: UnsafeBufferPointer(start: m, count: min(n, 300)), as: UTF8.self))") }
        }
        fill(p)
    }
}
