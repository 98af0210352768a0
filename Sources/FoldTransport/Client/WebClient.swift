import FoldSystem
import CLibWebSockets
import FoldCore
import Glibc

/// Options for a client context.
public struct WebClientOptions: Sendable {
    /// Largest message accepted from the server (a snapshot of a big board).
    public var maxMessageBytes = 16 * 1024 * 1024
    /// Accept self-signed or mismatched certificates on `wss://` / `https://`.
    public var allowInsecureTLS = false
    /// Seconds of silence before pinging the server, and before a server
    /// that does not answer is considered gone (a half-open TCP connection).
    public var pingSeconds = 20
    public var hangupSeconds = 45
    /// Seconds a connection attempt or HTTP exchange may take.
    public var connectTimeoutSeconds = 10

    public init() {}
}

/// A libwebsockets client context: WebSocket connections and HTTP GETs.
///
/// Threading contract (lws' own): one thread calls `start()`, then `run()`,
/// and is the service thread. Every method and field of this class and of
/// `ClientSocket` is for that thread only, and every delegate callback runs
/// there. Other threads only call `waker.wake()` (`lws_cancel_service`),
/// after putting whatever they want done in a mailbox of their own; the
/// delegate's `woken()` then drains it on the service thread.
public final class WebClient {
    public let options: WebClientOptions
    public let waker: Waker
    public weak var delegate: WebClientDelegate?
    let logger: Logger

    /// The context and what lws points at while it lives (protocol table,
    /// retry policy, names); service thread only, like every field below.
    let lws: LWSContext
    var context: OpaquePointer? { lws.raw }
    var sockets: [UInt64: ClientSocket] = [:]
    var fetches: [UInt64: Fetch] = [:]
    var nextID: UInt64 = 1
    var stopping = false
    /// True while inside `lws_client_connect_via_info`, which may report a
    /// failure synchronously: such reports are deferred to the loop.
    var starting = false
    /// Extra request headers per connection id, added during the handshake.
    var headers: [UInt64: [(String, String)]] = [:]
    /// The connect-info strings of each connection, kept while lws may read
    /// them and freed when the connection is gone (a client that reconnects
    /// for days must not pile them up).
    private var connectionStrings: [UInt64: [UnsafeMutableRawPointer]] = [:]
    private var retry: UnsafePointer<lws_retry_bo_t>?
    static let protocolName = "foldsync-client"

    /// An HTTP GET in flight.
    final class Fetch {
        var status = 0
        var body: [UInt8] = []
        var done = false
    }

    public init(options: WebClientOptions = WebClientOptions(), logger: Logger) {
        self.options = options
        self.logger = logger
        let waker = Waker()
        self.waker = waker
        lws = LWSContext(waker: waker)
    }

    /// A context `run()` never served is destroyed here, while this object
    /// is whole (its callbacks find the client through the context's user
    /// pointer); `lws` frees its tables after that.
    deinit {
        lws.destroy()
        for list in connectionStrings.values { for p in list { free(p) } }
    }

    /// A C copy of `s` kept while connection `connection` may be read by lws.
    func cString(_ s: String, for connection: UInt64) -> UnsafePointer<CChar> {
        let p = strdup(s)!
        connectionStrings[connection, default: []].append(UnsafeMutableRawPointer(p))
        return UnsafePointer(p)
    }

    /// Frees what `begin` allocated for a connection that is gone.
    func release(_ id: UInt64) {
        headers[id] = nil
        for p in connectionStrings.removeValue(forKey: id) ?? [] { free(p) }
    }

    /// Creates the context. Call on the thread that will call `run()`.
    public func start() throws(TransportError) {
        let logLevel = logger.level >= .debug ? Int32(LLL_ERR | LLL_WARN) : 0
        LWSLog.install(level: logLevel)
        var p = lws_protocols()
        p.name = lws.cString(Self.protocolName)
        p.callback = clientCallback
        p.rx_buffer_size = 16 * 1024
        let table = lws.protocols([p])
        // Used for its ping/hangup timers only: reconnecting is the owner's business.
        retry = lws.retryPolicy(pingSeconds: options.pingSeconds, hangupSeconds: options.hangupSeconds)

        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = table
        info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.timeout_secs = UInt32(clamping: options.connectTimeoutSeconds)
        info.connect_timeout_secs = UInt32(clamping: options.connectTimeoutSeconds)
        guard lws.create(&info, logLevel: logLevel, emit: LWSLog.sink) != nil else {
            throw TransportError(description: "cannot create the lws client context")
        }
    }

    /// Serves until `stop()`, then destroys the context. Service thread.
    public func run() {
        guard let ctx = context else { return }
        while !stopping, lws_service(ctx, 0) >= 0 {}
        lws.destroy()
    }

    /// One turn of the loop instead of `run()`, for an owner that drives its
    /// own loop around the client (a benchmark measuring phase by phase):
    /// waits until a socket is ready or a timer (`schedule`) is due, then
    /// services what is ready. False once stopped or never started; the
    /// context stays (`stop()` then `run()` destroys it). Service thread.
    public func serviceOnce() -> Bool {
        guard !stopping, let ctx = context else { return false }
        return lws_service(ctx, 0) >= 0
    }

    /// Ends `run()` on the next turn; open sockets are dropped. Service thread.
    public func stop() {
        guard !stopping, let ctx = context else { return }
        stopping = true
        lws_cancel_service(ctx)
    }

    /// Runs `body` on the service thread after a delay. Service thread.
    public func schedule(afterMicroseconds us: Int64, _ body: @escaping () -> Void) {
        lws.schedule(afterMicroseconds: us, body)
    }

    func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    /// Opens a WebSocket offering `subprotocols` (in order), with extra
    /// request headers (`Authorization`, say). The outcome arrives as
    /// `opened` or `closed`, never before this returns. Service thread.
    public func connect(
        _ endpoint: Endpoint, subprotocols: [String], headers extra: [(String, String)] = []
    ) -> ClientSocket {
        let socket = ClientSocket(id: allocateID(), endpoint: endpoint)
        sockets[socket.id] = socket
        if !extra.isEmpty { headers[socket.id] = extra }
        let ok = begin(id: socket.id, endpoint: endpoint, method: nil,
                       subprotocols: subprotocols.joined(separator: ", "), pwsi: socket.wsiSlot)
        if !ok { failLater(socket.id, "cannot connect to \(endpoint.authority)") }
        return socket
    }

    /// Starts `GET endpoint.path`; the answer arrives as `fetched(id, ...)`.
    /// Service thread.
    public func fetch(_ endpoint: Endpoint, headers extra: [(String, String)] = []) -> UInt64 {
        let id = allocateID()
        fetches[id] = Fetch()
        if !extra.isEmpty { headers[id] = extra }
        if !begin(id: id, endpoint: endpoint, method: "GET", subprotocols: nil, pwsi: nil) {
            failLater(id, "cannot connect to \(endpoint.authority)")
        }
        return id
    }

    private func begin(
        id: UInt64, endpoint: Endpoint, method: String?, subprotocols: String?,
        pwsi: UnsafeMutablePointer<OpaquePointer?>?
    ) -> Bool {
        guard let ctx = context else { return false }
        var i = lws_client_connect_info()
        i.context = ctx
        i.address = cString(endpoint.host, for: id)
        i.port = Int32(endpoint.port)
        i.path = cString(endpoint.path, for: id)
        i.host = cString(endpoint.authority, for: id)
        // No Origin: this is not a browser (lws would also write it as
        // http:// even over TLS, which a daemon checking origins refuses).
        if let method { i.method = cString(method, for: id) }
        if let subprotocols, !subprotocols.isEmpty { i.protocol = cString(subprotocols, for: id) }
        i.local_protocol_name = cString(Self.protocolName, for: id)
        i.ietf_version_or_minus_one = -1
        var flags: Int32 = 0
        if endpoint.secure {
            flags |= Int32(LCCSCF_USE_SSL.rawValue)
            if options.allowInsecureTLS {
                flags |= Int32(LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue
                               | LCCSCF_ALLOW_EXPIRED.rawValue)
            }
        }
        if method != nil { flags |= Int32(LCCSCF_HTTP_NO_FOLLOW_REDIRECT.rawValue) }
        i.ssl_connection = flags
        // HTTP/1.1 only: over TLS lws would otherwise offer h2 by ALPN, the
        // daemon would take it, and a WebSocket upgrade does not exist there.
        i.alpn = cString("http/1.1", for: id)
        i.pwsi = pwsi
        i.opaque_user_data = UnsafeMutableRawPointer(bitPattern: UInt(id))
        if method == nil, let retry { i.retry_and_idle_policy = retry }
        starting = true
        defer { starting = false }
        return lws_client_connect_via_info(&i) != nil
    }

    /// A failure found while starting, reported from the loop (the owner
    /// never sees a callback from inside its own `connect`).
    func failLater(_ id: UInt64, _ why: String, status: Int = 0) {
        schedule(afterMicroseconds: 1) { [weak self] in self?.failed(id, why, status: status) }
    }

    /// Reports a connection that could not be made, once; `status` is the
    /// HTTP status of a refused upgrade (0 when none came).
    func failed(_ id: UInt64, _ why: String, status: Int = 0) {
        release(id)
        if let socket = sockets.removeValue(forKey: id) {
            socket.state = .closed
            delegate?.closed(socket, (400..<600).contains(status) ? .refused(status: status) : .failed(why))
        } else if let f = fetches.removeValue(forKey: id), !f.done {
            f.done = true
            delegate?.fetched(id, .failure(TransportError(description: why)))
        }
    }
}
