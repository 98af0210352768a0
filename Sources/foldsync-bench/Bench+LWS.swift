import FoldCore
import FoldTransport

/// `--client lws`: every connection (subscribers, idle peers and the
/// publisher) on FoldTransport's libwebsockets client, serviced by this one
/// thread a turn at a time (`WebClient.serviceOnce`). lws frames, masks,
/// answers pings and reassembles messages; the benchmark sees whole text
/// messages in `received` and scans them with the same code as the epoll
/// loop. The publisher is paced by lws' own timers (`schedule`), and its
/// actions leave from lws' writeable callback, one frame per callback.
final class LWSLoop: WebClientDelegate {
    unowned let bench: Bench
    let client: WebClient
    let endpoint: Endpoint
    /// Socket id to the benchmark's peer.
    var peers: [UInt64: Peer] = [:]
    /// The earliest publish timer pending (at most one is kept useful).
    var armedNs: UInt64?
    var messagesSinceCheck = 0

    init(bench: Bench) throws {
        self.bench = bench
        var options = WebClientOptions()
        // A phase may keep a connection silent for minutes (idle peers);
        // pings are lws' business and cost nothing measurable here.
        options.connectTimeoutSeconds = 30
        client = WebClient(options: options, logger: bench.logger)
        endpoint = Endpoint(secure: false, host: bench.config.host, port: bench.config.port, path: bench.config.path)
        client.delegate = self
        do {
            try client.start()
        } catch {
            throw UsageError(description: "\(error)")
        }
        tick()
    }

    /// Bounds every wait to 20 ms, so conditions that depend on time alone
    /// (a deadline, a quiet period) are checked, as epoll's 50 ms timeout does.
    private func tick() {
        client.schedule(afterMicroseconds: 20_000) { [unowned self] in self.tick() }
    }

    func run(until done: () -> Bool, deadlineNs: UInt64) {
        while !done() {
            if System.nowNs() >= deadlineNs { return }
            guard client.serviceOnce() else { return }
        }
    }

    func connect(_ p: Peer) {
        let s = client.connect(endpoint, subprotocols: bench.config.offer)
        p.socket = s
        peers[s.id] = p
    }

    /// A one-shot lws timer for the publisher's next due change.
    func arm(atNs t: UInt64) {
        if let a = armedNs, a <= t { return }  // an earlier one will re-arm
        armedNs = t
        let now = System.nowNs()
        let us = t > now ? Int64((t - now) / 1000) : 0
        client.schedule(afterMicroseconds: max(us, 1)) { [unowned self] in
            if armedNs == t { armedNs = nil }
            bench.publishDue()
        }
    }

    // MARK: WebClientDelegate (all on this thread, inside serviceOnce)

    func opened(_ socket: ClientSocket) {
        guard let p = peers[socket.id] else { return }
        let b = bench
        b.negotiated[socket.subprotocol ?? "(none)", default: 0] += p.role == .idle ? 0 : 1
        p.state = .open
        if let board = p.board {
            b.send(p, text: b.subscribeMessage(board))
        } else {
            b.becameReady(p)
        }
    }

    func received(_ socket: ClientSocket, _ message: [UInt8]) {
        guard let p = peers[socket.id], p.state == .open else { return }
        let b = bench
        let now = System.nowNs()
        b.lastReceiveNs = now
        b.counters.bytesIn += message.count
        b.counters.framesIn += 1  // lws hands over messages; frames are not seen
        message.withUnsafeBufferPointer { m in
            if let base = m.baseAddress { b.message(p, base, m.count, now: now) }
        }
        // The publisher goes first: a long run of reads must not delay a due send.
        messagesSinceCheck &+= 1
        if messagesSinceCheck & 63 == 0 && b.publishing && now >= b.scheduledNs(b.pubSent) { b.publishDue() }
    }

    func closed(_ socket: ClientSocket, _ reason: ClientCloseReason) {
        guard let p = peers.removeValue(forKey: socket.id) else { return }
        p.socket = nil
        bench.counters.closed += 1
        guard p.state != .closed else { return }
        switch reason {
        case .failed(let why): bench.fail(p, "connect: \(why)")
        case .refused(let status): bench.fail(p, "connect: refused with HTTP \(status)")
        case .closed(let code?, _): bench.fail(p, "closed by the daemon with \(code)")
        case .closed(nil, _): bench.fail(p, p.state == .open ? "closed by the daemon" : "closed during the handshake")
        }
    }

    func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {}

    func woken() {}
}
