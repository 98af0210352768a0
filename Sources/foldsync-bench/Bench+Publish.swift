import FoldCore

extension Bench {
    /// Starts sending `count` changes at `rate`, the first due at `startNs`.
    func startPublishing(rate: Double, count: Int, startNs: UInt64) {
        pubStartNs = startNs
        pubIntervalNs = 1e9 / rate
        pubCount = count
        pubSent = 0
        armPublishTimer(atNs: startNs)
    }

    func scheduledNs(_ i: Int) -> UInt64 { pubStartNs &+ UInt64(Double(i) * pubIntervalNs) }

    var publishing: Bool { pubSent < pubCount }

    /// Sends every change that is due, even when late (no coordinated
    /// omission: each carries its actual send time, and lateness is counted),
    /// then re-arms the timer for the next one.
    func publishDue() {
        let p = publisher
        guard p.state == .open else { return }
        let now = System.nowNs()
        while pubSent < pubCount {
            let due = scheduledNs(pubSent)
            if due > now { break }
            let lag = now - due
            if lag > 1_000_000 { lateSends += 1 }
            if lag > maxLagNs { maxLagNs = lag }
            appendAction(seq: nextSeq, to: p)
            nextSeq += 1
            pubSent += 1
        }
        flush(p)
        if pubSent < pubCount {
            armPublishTimer(atNs: scheduledNs(pubSent))
        } else {
            lastSendNs = System.nowNs()
        }
    }

    /// `setTitle` on section `s<seq mod sections>`, titled `t:<ns>:<seq>:` and padded.
    func appendAction(seq: Int, to p: Peer) {
        action.removeAll(keepingCapacity: true)
        if config.wire == .broadcast { return appendStamp(seq: seq, to: p) }
        JSONWriter.appendRaw("{\"type\":\"setTitle\",\"board\":", to: &action)
        JSONWriter.appendString(config.board, to: &action)
        JSONWriter.appendRaw(",\"section\":\"s", to: &action)
        JSONWriter.appendInt(seq % config.sections, to: &action)
        JSONWriter.appendRaw("\",\"title\":\"t:", to: &action)
        let titleStart = action.count - 2
        JSONWriter.appendInt(Int(System.nowNs()), to: &action)
        action.append(UInt8(ascii: ":"))
        JSONWriter.appendInt(seq, to: &action)
        action.append(UInt8(ascii: ":"))
        let pad = titleLength - (action.count - titleStart)
        if pad > 0 { action.append(contentsOf: repeatElement(UInt8(ascii: "."), count: pad)) }
        JSONWriter.appendRaw("\"}", to: &action)
        if let s = p.socket { return s.send(action) }
        WebSocketFrame.append(opcode: WebSocketFrame.text, payload: action, mask: p.mask, to: &p.tx)
    }

    /// The broadcast peer's message: the stamp alone, padded like a title.
    func appendStamp(seq: Int, to p: Peer) {
        JSONWriter.appendRaw("t:", to: &action)
        JSONWriter.appendInt(Int(System.nowNs()), to: &action)
        action.append(UInt8(ascii: ":"))
        JSONWriter.appendInt(seq, to: &action)
        action.append(UInt8(ascii: ":"))
        let pad = titleLength - action.count
        if pad > 0 { action.append(contentsOf: repeatElement(UInt8(ascii: "."), count: pad)) }
        if let s = p.socket { return s.send(action) }
        WebSocketFrame.append(opcode: WebSocketFrame.text, payload: action, mask: p.mask, to: &p.tx)
    }

    func armPublishTimer(atNs t: UInt64) {
        if let lws { lws.arm(atNs: t) } else { timer.arm(atNs: t) }
    }

    /// Pads titles so the average patch seen so far comes out at `patchBytes`.
    func adjustTitleLength() {
        guard counters.patches > 0 else { return }
        let average = counters.patchBytes / counters.patches
        titleLength = max(0, titleLength + config.patchBytes - average)
    }
}
