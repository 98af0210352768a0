import FoldCore
import CBenchLinux
import Glibc

/// The load generator: one thread, one epoll, every connection non-blocking
/// (or, with `--client lws`, every connection on libwebsockets: `LWSLoop`).
/// Subscribers and idle peers only read; the publisher only writes actions.
final class Bench {
    let config: BenchConfig
    let logger: Logger
    let epoll: Epoll
    let timer: Timer
    /// One address per daemon (`BenchConfig.allNodes`).
    let addresses: [sockaddr_in]
    var peers: [Peer] = []
    /// The last slot: the connection that sends the changes.
    var publisher: Peer { peers[peers.count - 1] }

    static let timerToken = UInt64.max
    static let readSize = 256 * 1024
    let readBuffer: UnsafeMutableRawPointer

    // Receiving (the current phase).
    var counters = Counters()
    let latency = LatencyHistogram()
    let scheduledLatency = LatencyHistogram()
    /// Seqs of the measured window, inclusive; patches outside it are stale.
    var measureFirstSeq = Int.max
    var measureLastSeq = Int.max
    var measureStartNs: UInt64 = 0
    var measureIntervalNs = 0.0
    var lastReceiveNs: UInt64 = 0

    // Connecting.
    var negotiated: [String: Int] = [:]
    var inFlight = 0
    var readyCount = 0
    var failures = 0
    var failureReasons: [String: Int] = [:]

    // Publishing.
    var nextSeq = 1
    var pubStartNs: UInt64 = 0
    var pubIntervalNs = 0.0
    var pubCount = 0
    var pubSent = 0
    var lateSends = 0
    var maxLagNs: UInt64 = 0
    var lastSendNs: UInt64 = 0
    var titleLength = 40
    var action: [UInt8] = []
    /// `--keys`: the start of every key, unique to this run (a store may outlive it).
    let keyPrefix = Array("b\(String(UInt64.random(in: 0...UInt64.max), radix: 16))-".utf8)

    /// Writer mode: writers top their windows up while this holds.
    var writing = false

    // Loop accounting: time inside epoll_wait versus the whole.
    var waitNs: UInt64 = 0
    /// The libwebsockets client (`--client lws`); nil on the epoll loop.
    var lws: LWSLoop?

    init(config: BenchConfig, logger: Logger) throws {
        self.config = config
        self.logger = logger
        epoll = try Epoll(capacity: 4096)
        timer = try Timer()
        addresses = try config.allNodes.map { n in
            guard let a = System.ipv4(host: n.host, port: n.port) else { throw UsageError(description: "bad address \(n.host):\(n.port)") }
            return a
        }
        readBuffer = .allocate(byteCount: Self.readSize, alignment: 16)
        try epoll.add(timer.fd, token: Self.timerToken, events: EPOLLIN.rawValue)
        if config.writers > 0 {
            // Writer mode: the writers alone, spread over every daemon.
            for i in 0..<config.writers {
                let w = Peer(slot: i, role: .writer, board: nil, node: i % addresses.count)
                w.writeBoard = config.sharedBoard ? BenchConfig.sharedBoardName : "bench-w\(i)"
                peers.append(w)
            }
        } else {
            // Subscribers over every daemon but the publisher's (when it has its own).
            let spread = (0..<addresses.count).filter { $0 != config.publisherNode }
            let over = spread.isEmpty ? [0] : spread
            for i in 0..<config.connections { peers.append(Peer(slot: i, role: .subscriber, board: config.board, node: over[i % over.count])) }
            for i in 0..<config.idle {
                peers.append(Peer(slot: config.connections + i, role: .idle, board: BenchConfig.idleBoard, node: over[i % over.count]))
            }
            peers.append(Peer(slot: config.connections + config.idle, role: .publisher, board: nil, node: config.publisherNode ?? 0))
        }
        action.reserveCapacity(512)
        if config.client == .lws { lws = try LWSLoop(bench: self) }
    }

    deinit {
        for p in peers where p.fd >= 0 { close(p.fd) }
        readBuffer.deallocate()
    }

    /// Runs the loop until `done()` or the deadline (monotonic ns).
    func run(until done: () -> Bool, deadlineNs: UInt64) {
        if let lws { return lws.run(until: done, deadlineNs: deadlineNs) }
        while !done() {
            let now = System.nowNs()
            if now >= deadlineNs { return }
            let timeout = Int32(min(50, (deadlineNs - now) / 1_000_000 + 1))
            let n = epoll.poll(timeoutMs: timeout)
            waitNs += System.nowNs() - now
            for i in 0..<n {
                // The publisher goes first: a long burst of reads must not delay a due send.
                if i & 63 == 0 && pubSent < pubCount && System.nowNs() >= scheduledNs(pubSent) { publishDue() }
                let (token, mask) = epoll.event(i)
                if token == Self.timerToken {
                    timer.drain()
                    publishDue()
                } else {
                    handle(peers[Int(token)], mask)
                }
            }
        }
    }

    @inline(__always)
    func handle(_ p: Peer, _ mask: UInt32) {
        if p.state == .closed { return }
        if p.state == .connecting {
            finishConnect(p)
            return
        }
        if mask & EPOLLOUT.rawValue != 0 { flush(p) }
        if mask & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readable(p) }
    }

    var openSubscribers: Int { peers.reduce(0) { $0 + ($1.role == .subscriber && $1.state == .open && $1.ready ? 1 : 0) } }
}
