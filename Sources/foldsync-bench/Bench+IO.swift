import CBenchLinux
import Glibc

extension Bench {
    /// Queues one masked text frame and tries to write it now.
    func send(_ p: Peer, text: [UInt8]) {
        if let s = p.socket { return s.send(text) }
        WebSocketFrame.append(opcode: WebSocketFrame.text, payload: text, mask: p.mask, to: &p.tx)
        flush(p)
    }

    /// Writes what the socket takes; asks for EPOLLOUT only while bytes remain.
    func flush(_ p: Peer) {
        guard p.fd >= 0 else { return }  // lws writes from its own callback
        while p.txOffset < p.tx.count {
            let r = p.tx.withUnsafeBytes { System.write(p.fd, $0.baseAddress! + p.txOffset, $0.count - p.txOffset) }
            switch r {
            case .done(let n): p.txOffset += n
            case .wouldBlock: break
            case .closed: return fail(p, "closed by the daemon")
            case .failed(let e): return fail(p, "write: \(String(cString: strerror(e)))")
            }
            if case .wouldBlock = r { break }
        }
        if p.txOffset >= p.tx.count {
            p.tx.removeAll(keepingCapacity: true)
            p.txOffset = 0
        }
        let want = p.hasPendingOutput || p.state == .connecting
        if want != p.wantsWrite {
            p.wantsWrite = want
            epoll.modify(p.fd, token: UInt64(p.slot), events: Epoll.readable | (want ? Epoll.writable : 0))
        }
    }

    /// Reads what is there (a few buffers at most, then lets others have a turn).
    func readable(_ p: Peer) {
        for _ in 0..<4 {
            guard p.fd >= 0 else { return }
            switch System.read(p.fd, readBuffer, Self.readSize) {
            case .done(let n):
                let now = System.nowNs()
                lastReceiveNs = now
                counters.bytesIn += n
                var data = UnsafeRawBufferPointer(start: readBuffer, count: n)
                if p.state == .handshaking {
                    let rest = readHandshake(p, data)
                    if rest <= 0 {
                        if n < Self.readSize { return }
                        continue
                    }
                    data = UnsafeRawBufferPointer(rebasing: data[(n - rest)...])
                }
                if p.state == .open { receive(p, data, now: now) }
                if n < Self.readSize { return }
            case .wouldBlock:
                return
            case .closed:
                return fail(p, p.state == .open ? "closed by the daemon" : "closed during the handshake")
            case .failed(let e):
                return fail(p, "read: \(String(cString: strerror(e)))")
            }
        }
    }

    /// Parses frames from `data`, keeping an incomplete tail for the next read.
    func receive(_ p: Peer, _ data: UnsafeRawBufferPointer, now: UInt64) {
        if p.rxPending.isEmpty {
            let base = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let used = frames(p, base, data.count, now: now)
            if used < data.count && p.state == .open {
                p.rxPending.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[used...]))
            }
        } else {
            p.rxPending.append(contentsOf: data)
            let pending = p.rxPending
            let used = pending.withUnsafeBufferPointer { frames(p, $0.baseAddress!, $0.count, now: now) }
            if p.state == .open {
                p.rxPending.removeFirst(used)
            }
        }
    }

    /// Handles every whole frame at `base`; returns the bytes consumed.
    @inline(__always)
    func frames(_ p: Peer, _ base: UnsafePointer<UInt8>, _ n: Int, now: UInt64) -> Int {
        var at = 0
        while let h = WebSocketFrame.header(base + at, n - at), at + h.headerLength + h.payloadLength <= n {
            let payload = base + at + h.headerLength
            let len = h.payloadLength
            at += h.headerLength + len
            counters.framesIn += 1
            switch h.opcode {
            case WebSocketFrame.text where h.fin && !p.inFragment:
                message(p, payload, len, now: now)
            case WebSocketFrame.text, 0:
                p.fragment.append(contentsOf: UnsafeBufferPointer(start: payload, count: len))
                p.inFragment = !h.fin
                if h.fin {
                    let whole = p.fragment
                    p.fragment = []
                    whole.withUnsafeBufferPointer { message(p, $0.baseAddress!, $0.count, now: now) }
                }
            case WebSocketFrame.ping:
                WebSocketFrame.append(opcode: WebSocketFrame.pong, payload: UnsafeRawBufferPointer(start: payload, count: len), mask: p.mask, to: &p.tx)
                flush(p)
            case WebSocketFrame.close:
                let code = len >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                fail(p, "closed by the daemon with \(code)")
                return at
            default:
                break
            }
            if p.state != .open { return at }
        }
        return at
    }

    /// One text message: several JSON objects separated by `\n` when batched.
    @inline(__always)
    func message(_ p: Peer, _ base: UnsafePointer<UInt8>, _ n: Int, now: UInt64) {
        var start = 0
        while start < n {
            var end = start
            if let nl = memchr(base + start, 0x0A, n - start) {
                end = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            } else {
                end = n
            }
            if end > start { json(p, base + start, end - start, now: now) }
            start = end + 1
        }
    }
}
