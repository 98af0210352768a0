import CLibWebSockets
import FoldCore

/// One WebSocket peer and its bounded outgoing queue.
///
/// Service thread only, like everything lws hands us: the hub enqueues here
/// and the WRITEABLE callback drains, both on that thread.
public final class Connection {
    public let id: UInt64
    /// Answered with `foldsync.v1.batch`: queued messages may leave as one
    /// newline-separated frame.
    public let batching: Bool
    public let peer: String
    /// The upgrade request's headers (lower-case names) and, under `query`,
    /// its query string: credentials may travel there. Dropped once read
    /// (`forgetUpgradeHeaders`): at 10,000 connections they would cost megabytes.
    public private(set) var upgradeHeaders: [String: String]
    let wsi: OpaquePointer
    /// Everything about its outgoing side: queue, pacing, the close handshake.
    var out: WriteMachine
    /// Why the daemon ended it, once it decided to (counted at the end).
    var closeCause: CloseCause?
    /// Keep-alive (see `KeepAlive`): when the peer was last heard from, and
    /// when a PING went out since (0: none).
    var lastHeardNs: UInt64
    var pingSentNs: UInt64 = 0
    /// The message being reassembled from fragments.
    var rx: [UInt8] = []
    /// The TCP socket when the connection is plain (no TLS, not HTTP/2):
    /// the writer sends on it itself when lws holds nothing back; -1 otherwise.
    let plainSocket: Int32
    /// The server's writer, which outlives every connection. Unmanaged and
    /// borrowed for each call: even an `unowned(unsafe)` reference is
    /// retained around a call, once per subscriber of every fan-out.
    private let writerRef: Unmanaged<CorkedWriter>

    init(id: UInt64, wsi: OpaquePointer, batching: Bool, peer: String, upgradeHeaders: [String: String], writer: CorkedWriter) {
        writerRef = .passUnretained(writer)
        // WebSocket over HTTP/2 is a stream of another connection's socket: lws frames it.
        let direct = lws_get_network_wsi(wsi) == wsi
        plainSocket = direct && lws_is_ssl(wsi) == 0 ? Int32(lws_get_socket_fd(wsi)) : -1
        out = WriteMachine(route: plainSocket >= 0 ? .socket : direct ? .lwsRaw : .lwsFramed, batching: batching)
        self.id = id
        self.wsi = wsi
        self.batching = batching
        self.peer = peer
        self.upgradeHeaders = upgradeHeaders
        lastHeardNs = Pacing.now()
    }

    /// Something arrived from the peer (a message, a PONG): it is alive.
    @inline(__always)
    func heard(now: UInt64) {
        lastHeardNs = now
        pingSentNs = 0
    }

    public func forgetUpgradeHeaders() { upgradeHeaders = [:] }

    public var queuedFrames: Int { out.queue.count }
    public var queuedBytes: Int { out.queue.bytes }
    public var isClosing: Bool { out.isClosing }

    /// Queues a frame shared with other connections; the bytes are not copied.
    /// A frame sent this way is an answer to this client (an ack, an error, a
    /// snapshot): it is written at the end of the turn even when the
    /// connection is paced. Fan-out goes through `WebServer.fanOut`.
    public func send(_ frame: OutFrame) {
        if out.push(frame, reply: true) { writerRef._withUnsafeGuaranteedRef { $0.queued(self) } }
    }

    /// Drops what is queued and not yet written (conflation: the caller
    /// replaces it with a snapshot).
    public func discardQueued() { out.discardQueued() }

    /// Sends a close frame after what is queued (or at once when `flush` is
    /// false), then drops the connection; `/metrics` counts it under
    /// `cause`. `deadlineSeconds` bounds a peer that never reads: lws then
    /// drops it without ceremony.
    public func close(code: CloseCode, reason: String, cause: CloseCause, flush: Bool = true, deadlineSeconds: Int32 = 5) {
        guard out.closeRequested(code: code.rawValue, reason: reason, flush: flush) else { return }
        closeCause = cause
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, deadlineSeconds)
        writerRef._withUnsafeGuaranteedRef { $0.request(self) }
    }
}
