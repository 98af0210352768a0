import FoldSystem
import CLibWebSockets
import FoldCore
import Glibc

/// The daemon's server, one lws context (owned by `lws`): WebSocket at `/ws`
/// and HTTP on the same port.
///
/// Threading contract (lws' own): one service thread creates the context,
/// runs `run()`, and is the only thread that touches connections, queues and
/// lws state. Other threads only call `waker.wake()` (lws_cancel_service).
public final class WebServer {
    /// Limits may change on reload (service thread); addresses and the loop may not.
    public var config: TransportConfig
    public let waker: Waker
    let timers: ServiceTimers
    lazy var writer: CorkedWriter = {
        let w = CorkedWriter(maxWriteBytes: config.maxBatchBytes, lingerMs: config.coalesceMs) { [unowned self] us, body in
            self.timers.schedule(afterMicroseconds: us, body)
        }
        w.drained = { [unowned self] c in self.delegate?.drained(c) }
        return w
    }()

    public weak var delegate: WebServerDelegate?
    let logger: Logger

    /// The context and what lws points at while it lives; service thread
    /// only, like every field below.
    let lws: LWSContext
    var context: OpaquePointer? { lws.raw }
    var vhost: OpaquePointer?
    public private(set) var port = 0
    var connections: [UInt64: Connection] = [:]
    /// Fan-out id lists resolved to connections (see `Audiences`).
    var audiences = Audiences<Connection>()
    /// Accepted sockets that have not made a request yet, with when they
    /// were accepted (see ServerCallback and `sweepHandshakes`).
    var unannounced: [OpaquePointer: UInt64] = [:]
    var handshakeSweepArmed = false
    /// Descriptors at or above this are refused at the upgrade with a 503 (see `start`).
    var upgradeDescriptorCeiling = Int.max
    /// `LWSLog.pastTable` as last reported, and when (see `reportRefusals`).
    var reportedPastTable = 0
    var lastRefusalReportNs: UInt64 = 0
    /// What the transport refused on its own, for `/metrics`.
    public internal(set) var counters = TransportCounters()
    var exchanges: [UInt64: HTTPState] = [:]
    var nextID: UInt64 = 1
    var stopping = false
    /// Set at the start of a graceful shutdown: upgrades are refused from then on.
    public var refuseNewConnections = false
    /// Reused for HTTP headers and chunks: lws copies what it cannot send at once.
    var scratch: UnsafeMutableRawPointer
    var scratchSize: Int

    /// `clock` wakes the loop through `waker` when a timer is due; its owner
    /// runs it (a `Service`) for as long as `run()` serves.
    public init(config: TransportConfig, logger: Logger, waker: Waker, clock: TimerClock) {
        self.config = config
        self.logger = logger
        self.waker = waker
        timers = ServiceTimers(clock: clock)
        lws = LWSContext(waker: waker)
        scratchSize = max(config.maxBatchBytes, 64 * 1024) + Int(fs_lws_pre()) + 16
        scratch = .allocate(byteCount: scratchSize, alignment: 16)
    }

    /// A context `run()` never served is destroyed here, while this object
    /// is whole (its callbacks find the server through the context's user
    /// pointer); `lws` frees its tables after that.
    deinit {
        lws.destroy()
        scratch.deallocate()
    }

    public var connectionCount: Int { connections.count }
    /// WebSocket writes (each one system call unless the socket was full) and the messages they carried.
    public var writeCounts: (writes: Int, messages: Int, short: Int) {
        (writer.writes, writer.messagesWritten, writer.shortWrites)
    }
    /// The pacing as it stands: what a write costs as measured, the
    /// connections paced in the last window, and the gather they get (ns).
    public var pacingFigures: (nsPerWrite: Int, paced: Int, gatherNs: Int) {
        let p = writer.pacer.pacing
        return (Int(p.nsPerWrite), p.pacedCount, Int(p.gatherNs))
    }
    public func connection(_ id: UInt64) -> Connection? { connections[id] }

    /// Queues one shared frame on each of `ids` whose queue `bound` admits
    /// it; `overflow` hears, in order and at once, each that has no room.
    /// The loop lives here so that the queue checks and pushes inline: it
    /// runs once per subscriber of every change.
    ///
    /// `writeNow` (the turn's only fan-out) writes each connection as it
    /// comes, as uWebSockets does, instead of queueing all and then writing
    /// all at the turn's end: the first subscriber is written after one
    /// queue push, not after every subscriber's. With several fan-outs in a
    /// turn the writes wait for the flush, so each connection still gets
    /// them in one system call. `later`: connections the turn writes anyway
    /// (the originator, whose ack follows): they wait for the flush too, and
    /// get the patch and the ack in one write.
    public func fanOut(_ frame: OutFrame, to ids: [UInt64], within bound: QueueBound, writeNow: Bool = false,
                       except later: [UInt64] = [], overflow: (UInt64) -> Void) {
        let members = audiences.members(for: ids, resolve: { connections[$0] })
        let now = writeNow ? Pacing.now() : 0
        let writer = self.writer
        members.withUnsafeBufferPointer { list in
            guard let base = list.baseAddress else { return }
            let refs = UnsafeRawPointer(base)
            for i in list.indices {
                if writeNow { CorkedWriter.prefetch(refs, count: list.count, after: i) }
                // Held by `connections` while listed (see `Audiences`): no retain per subscriber.
                list[i]._withUnsafeGuaranteedRef { c in
                    guard bound.admits(queuedFrames: c.out.queue.count, queuedBytes: c.out.queue.bytes, adding: frame.count) else {
                        overflow(c.id)
                        return
                    }
                    guard c.out.push(frame) else { return }
                    if writeNow && (later.isEmpty || !later.contains(c.id)) { writer.writeNow(c, now: now) } else { writer.queued(c) }
                }
            }
        }
    }

    /// A connection lws closed: no longer known, nor in any cached audience.
    func forget(_ id: UInt64) -> Connection? {
        audiences.removeAll()
        return connections.removeValue(forKey: id)
    }

    /// Creates the context and binds. Call on the thread that will call `run()`.
    public func start() throws(TransportError) {
        let logLevel = logger.level >= .debug ? Int32(LLL_ERR | LLL_WARN) : Int32(LLL_ERR)
        LWSLog.install(level: logLevel)
        let fdLimit = DescriptorLimit.raise()

        // Three names, one callback: a client without a subprotocol lands on
        // protocols[0], which also serves plain HTTP.
        let names = ["http", Subprotocol.plain, Subprotocol.batch]
        let table = lws.protocols(names.enumerated().map { i, name in
            var p = lws_protocols()
            p.name = lws.cString(name)
            p.callback = serverCallback
            p.per_session_data_size = MemoryLayout<fs_pss_t>.size
            // The receive chunk; messages are reassembled past it. Small,
            // because lws keeps one per connection: 256 bytes instead of 512
            // took 2.8 MiB off 10,000 subscribers (53.0 → 50.2 MiB peak, with
            // one-chunk messages no longer copied into `Connection.rx`).
            p.rx_buffer_size = 256
            // lws splits sends into tx_packet_size pieces; a coalesced batch should leave in one.
            p.tx_packet_size = scratchSize
            p.id = UInt32(i)
            return p
        })
        // lws' validity timers off: the keep-alive sweep does their work (see `KeepAlive`).
        let policy = lws.retryPolicy(pingSeconds: 0, hangupSeconds: 0)

        var info = lws_context_creation_info()
        var options = UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS) | UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        switch config.eventLoop {
        case .poll: break
        case .libev: options |= UInt64(LWS_SERVER_OPTION_LIBEV)
        case .libuv: options |= UInt64(LWS_SERVER_OPTION_LIBUV) | UInt64(LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN)
        }
        if config.tls { options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        info.options = options
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.port = CONTEXT_PORT_NO_LISTEN
        // lws' own round trips (a request body arriving, a close being sent)
        // are bounded by the context's value, not the vhost's (5 s on lws
        // 4.1.6 and 15 s on 4.3 when unset): the same bound on both.
        info.timeout_secs = UInt32(max(config.handshakeTimeout, 1))
        // lws sizes its descriptor table from the soft limit at creation. It
        // must stay below the real limit, or accept() meets EMFILE first and
        // lws (4.1.6 and 4.3.5 alike) spins on it; but setting fd_limit_per_thread for that turns
        // every fd lookup into a scan of the whole table (40% of the CPU at
        // 10,000 connections). So lower the soft limit while the context is
        // made, then lift it again: lws keeps direct indexing, refuses fds
        // past its table cleanly, and the reserve stays free for everything else.
        // (A small limit keeps at least a quarter of it in reserve.)
        let reserved = fdLimit - min(config.fdReserve, max(fdLimit / 4, 1))
        // Upgrades on descriptors this high get a 503 (`confirmUpgrade`), so
        // lws' silent refusals past its table are left for a storm of more
        // handshakes at once than this margin.
        upgradeDescriptorCeiling = reserved - min(64, max(reserved / 8, 1))
        DescriptorLimit.setSoft(reserved)
        let created = lws.create(&info, logLevel: logLevel, emit: LWSLog.sink)
        DescriptorLimit.setSoft(fdLimit)
        guard let ctx = created else {
            throw TransportError(description: "cannot create the lws context (event loop \(config.eventLoop.rawValue): is its plugin installed?)")
        }
        var vi = lws_context_creation_info()
        vi.options = UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) * (config.host.contains(":") ? 0 : 1)
        if config.tls {
            // lws (4.1.6 and 4.3.5) reads this flag from the vhost too: without it the "TLS"
            // port would silently serve plain text.
            vi.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            vi.ssl_cert_filepath = lws.cString(config.tlsCert)
            vi.ssl_private_key_filepath = lws.cString(config.tlsKey)
        }
        vi.port = Int32(config.port)
        vi.iface = lws.cString(config.host)
        vi.vhost_name = lws.cString("foldsyncd")
        vi.protocols = table
        vi.server_string = lws.cString(config.serverName)
        vi.retry_and_idle_policy = policy
        vi.keepalive_timeout = 30
        guard let vh = lws_create_vhost(ctx, &vi) else {
            lws.destroy()
            throw TransportError(description: "cannot listen on \(config.host):\(config.port) (address in use or not available)")
        }
        vhost = vh
        port = Int(lws_get_vhost_listen_port(vh))
    }

    /// Serves until `stop()`. Service thread.
    public func run() {
        guard let ctx = context else { return }
        everySecond()
        if config.eventLoop == .poll {
            while !stopping, lws_service(ctx, 0) >= 0 {}
        } else {
            // The event library's loop runs inside lws_service until the
            // context is destroyed (from a timer, see stop()).
            _ = lws_service(ctx, 0)
        }
        lws.destroy()
        // /metrics goes with the process; the journal keeps the last count.
        let ends = CloseCause.allCases.compactMap { c in counters.closes[c].map { "\(c.rawValue) \($0)" } }
        logger.info("connections closed: \(ends.isEmpty ? "none" : ends.joined(separator: ", "))")
    }

    /// Ends `run()` on the next turn. Service thread.
    public func stop() {
        guard !stopping, let ctx = context else { return }
        stopping = true
        if config.eventLoop == .poll {
            lws_cancel_service(ctx)
        } else {
            // Destroying the context from an lws timer lets the event loop run
            // dry; from inside a wsi callback it would pull the floor away.
            scheduleLWS(afterMicroseconds: 1) { [weak self] in self?.lws.destroy() }
        }
    }

    /// Runs `body` on the service thread after a delay. Service thread.
    public func schedule(afterMicroseconds us: Int64, _ body: @escaping () -> Void) {
        timers.schedule(afterMicroseconds: us, body)
    }

    /// Once a second: the keep-alive sweep and the refusals' report. One
    /// wake-up for the whole daemon, not one timer per connection.
    ///
    /// It also serves libev: lws' own timers (its timeouts) share one
    /// ev_timer that lws (4.1.6 and 4.3.5) cannot move earlier while it runs (see
    /// ServiceTimers), and every fd event makes lws run its due timers in
    /// libev's idle pass, so this wake-up keeps them within a second of their time.
    private func everySecond() {
        guard !stopping else { return }
        let now = Pacing.now()
        sweepKeepAlive(now: now)
        sweepClosedStreams()
        reportRefusals(now: now)
        schedule(afterMicroseconds: 1_000_000) { [weak self] in self?.everySecond() }
    }

    /// An lws timer, for what must run outside any wsi callback (destroying
    /// the context). Kicking the event pipe makes libev's idle pass service
    /// it, since a due lws timer is run there whatever the ev_timer says.
    func scheduleLWS(afterMicroseconds us: Int64, _ body: @escaping () -> Void) {
        guard let ctx = context else { return }
        lws.schedule(afterMicroseconds: us, body)
        lws_cancel_service(ctx)
    }

    /// Answers an HTTP request; dropped when the peer has gone. Service thread.
    public func respond(_ id: UInt64, _ response: HTTPResponse) {
        guard let state = exchanges[id], state.response == nil else { return }
        state.response = response
        lws_callback_on_writable(state.wsi)
    }

    /// A socket was accepted: it has `handshakeTimeout` seconds to make its
    /// request. lws' own timeouts (4.1.6 and 4.3.5) leave a client that sends complete
    /// header lines but never the blank line (slowloris) connected, so the
    /// transport sweeps them itself, once a second while any are waiting.
    func accepted(_ wsi: OpaquePointer) {
        unannounced[wsi] = Pacing.now()
        guard !handshakeSweepArmed else { return }
        handshakeSweepArmed = true
        schedule(afterMicroseconds: 1_000_000) { [weak self] in self?.sweepHandshakes() }
    }

    private func sweepHandshakes() {
        handshakeSweepArmed = false
        let limit = UInt64(max(config.handshakeTimeout, 1)) * 1_000_000_000
        let now = Pacing.now()
        for (wsi, since) in unannounced where now &- since >= limit {
            // Counted when lws destroys it (WSI_DESTROY), like every unfinished handshake.
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
        if !unannounced.isEmpty {
            handshakeSweepArmed = true
            schedule(afterMicroseconds: 1_000_000) { [weak self] in self?.sweepHandshakes() }
        }
    }

    /// Re-reads the certificate and key files (renewed on disk) into the
    /// running vhost; connections already open keep their session.
    public func reloadCertificates() throws(TransportError) {
        guard config.tls, let ctx = context else { return }
        guard let cert = Self.readFile(config.tlsCert), let key = Self.readFile(config.tlsKey) else {
            throw TransportError(description: "cannot read \(config.tlsCert) or \(config.tlsKey)")
        }
        let rc = cert.withUnsafeBufferPointer { c in
            key.withUnsafeBufferPointer { k in
                lws_tls_cert_updated(ctx, config.tlsCert, config.tlsKey, c.baseAddress, c.count, k.baseAddress, k.count)
            }
        }
        guard rc == 0 else { throw TransportError(description: "lws refused the renewed certificate (\(rc))") }
    }

    static func readFile(_ path: String) -> [CChar]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [CChar] = []
        var buf = [CChar](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }
}
