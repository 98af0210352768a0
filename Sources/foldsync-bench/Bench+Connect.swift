import Glibc

extension Bench {
    /// Opens every connection, at most `connectConcurrency` handshakes at a
    /// time, until each subscriber has its first snapshot. Returns seconds taken.
    func connectAll(timeoutSeconds: Double) -> Double {
        let start = System.nowNs()
        var next = 0
        let k = config.connectConcurrency
        run(until: {
            while inFlight < k && next < peers.count {
                startConnect(peers[next])
                next += 1
            }
            return readyCount + failures >= peers.count
        }, deadlineNs: start + UInt64(timeoutSeconds * 1e9))
        return Double(System.nowNs() - start) / 1e9
    }

    func startConnect(_ p: Peer) {
        inFlight += 1
        if let lws {
            p.state = .handshaking
            lws.connect(p)
            return
        }
        do {
            p.fd = try System.startConnect(addresses[p.node])
            try epoll.add(p.fd, token: UInt64(p.slot), events: Epoll.readable | Epoll.writable)
            p.state = .connecting
            p.wantsWrite = true
        } catch {
            fail(p, "\(error)")
        }
    }

    func finishConnect(_ p: Peer) {
        let err = System.socketError(p.fd)
        guard err == 0 else { return fail(p, "connect: \(String(cString: strerror(err)))") }
        p.state = .handshaking
        let key = base64(slot: p.slot)
        let offer = config.offer.joined(separator: ", ")
        let protocols = offer.isEmpty ? "" : "Sec-WebSocket-Protocol: \(offer)\r\n"
        let n = config.allNodes[p.node]
        let request = "GET \(n.path) HTTP/1.1\r\nHost: \(n.host):\(n.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\(protocols)\r\n"
        p.tx.append(contentsOf: request.utf8)
        flush(p)
    }

    /// Reads the 101 answer; returns how many bytes of `data` followed it (frames), or -1 while incomplete.
    func readHandshake(_ p: Peer, _ data: UnsafeRawBufferPointer) -> Int {
        let before = p.handshake.count
        p.handshake.append(contentsOf: data)
        let end: Int? = p.handshake.withUnsafeBufferPointer { b in
            let i = Scan.find("\r\n\r\n", in: b.baseAddress!, from: 0, to: b.count)
            return i < 0 ? nil : i + 4
        }
        guard let end else {
            if p.handshake.count > 16384 { fail(p, "handshake answer too long") }
            return -1
        }
        let head = String(decoding: p.handshake[0..<end], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else {
            fail(p, "upgrade refused: \(head.prefix { $0 != "\r" })")
            return -1
        }
        var proto = "(none)"
        for line in head.split(separator: "\r\n") {
            let l = line.lowercased()
            if l.hasPrefix("sec-websocket-protocol:") {
                proto = String(l.dropFirst("sec-websocket-protocol:".count).filter { $0 != " " })
            }
        }
        negotiated[proto, default: 0] += p.role == .idle ? 0 : 1
        p.state = .open
        p.handshake = []
        if let board = p.board {
            send(p, text: subscribeMessage(board))
        } else {
            becameReady(p)
        }
        return before + data.count - end
    }

    /// What a subscriber sends first; it is set up on the answer (a snapshot, or `subscribed`).
    func subscribeMessage(_ board: String) -> [UInt8] {
        switch config.wire {
        case .foldsync: return Array("{\"type\":\"subscribe\",\"board\":\"\(board)\"}".utf8)
        case .broadcast: return Array((board == config.board ? "subscribe" : "subscribe \(board)").utf8)
        }
    }

    func becameReady(_ p: Peer) {
        p.ready = true
        readyCount += 1
        inFlight -= 1
    }

    func fail(_ p: Peer, _ why: String) {
        if !p.ready {
            failures += 1
            inFlight -= 1
            p.ready = true  // counted once
            p.state = .closed
        }
        failureReasons[why, default: 0] += 1
        if failureReasons[why] == 1 { logger.warning("connection \(p.slot): \(why)") }
        closePeer(p)
    }

    func closePeer(_ p: Peer) {
        // lws reports the end in `closed`, which counts it and drops the socket.
        p.socket?.close()
        if p.fd >= 0 {
            epoll.remove(p.fd)
            close(p.fd)
            p.fd = -1
            counters.closed += 1
        }
        p.state = .closed
    }

    /// A Sec-WebSocket-Key: 16 bytes, base64, different per connection.
    func base64(slot: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var x = UInt64(truncatingIfNeeded: slot) &* 0x9E37_79B9_7F4A_7C15 ^ System.nowNs()
        var out: [UInt8] = []
        for _ in 0..<21 {
            out.append(alphabet[Int(x & 63)])
            x = x >> 6 | x << 58
            x = x &* 6_364_136_223_846_793_005 &+ 1
        }
        out.append(alphabet[Int(x & 48)])  // 22nd char: 2 bits of padding
        return String(decoding: out, as: UTF8.self) + "=="
    }
}
