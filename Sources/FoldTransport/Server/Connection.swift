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
    var queue = FrameQueue()
    /// The close frame to send; the code as its number, which is what
    /// `CorkedWriter` hands to lws.
    var closeRequest: (code: UInt16, reason: String)?
    /// Why the daemon ended it, once it decided to (counted at the end).
    var closeCause: CloseCause?
    /// Keep-alive (see `KeepAlive`): when the peer was last heard from, and
    /// when a PING went out since (0: none); `pingDue` until lws has written it.
    var lastHeardNs: UInt64
    var pingSentNs: UInt64 = 0
    var pingDue = false
    /// A write the socket refused: the peer is gone.
    var writeFailed = false
    /// The message being reassembled from fragments.
    var rx: [UInt8] = []
    /// Pacing (see `WritePacer`): when the last write happened, the arrival
    /// window, whether it is hot and the pacer's window it was last counted
    /// hot in, whether a paced write is pending; whether lws closed it.
    var lastWriteNs: UInt64 = 0
    var windowStartNs: UInt64 = 0
    var windowCount: UInt32 = 0
    var hot = false
    var hotWindow: UInt32 = 0
    var deferred = false
    var closed = false
    /// Corked writing (see `CorkedWriter`): on this turn's flush list; a
    /// WRITEABLE callback asked for; the peer sent a close frame (nothing
    /// more may follow ours); frames may be written outside WRITEABLE and
    /// framed by us (false for WebSocket carried in an HTTP/2 stream).
    var scheduled = false
    var awaiting = false
    var peerClosing = false
    /// Set by `discardQueued` (a resync): the delegate hears when the queue
    /// empties again, and only then, so the hot path reports nothing.
    var drainWatched = false
    let direct: Bool
    /// The TCP socket when the connection is plain (no TLS, not HTTP/2):
    /// CorkedWriter sends on it itself when lws holds nothing back; -1 otherwise.
    let plainSocket: Int32
    /// The server's writer, which outlives every connection. Unmanaged and
    /// borrowed for each call: even an `unowned(unsafe)` reference is
    /// retained around a call, once per subscriber of every fan-out.
    private let writerRef: Unmanaged<CorkedWriter>

    init(id: UInt64, wsi: OpaquePointer, batching: Bool, peer: String, upgradeHeaders: [String: String], writer: CorkedWriter) {
        writerRef = .passUnretained(writer)
        direct = lws_get_network_wsi(wsi) == wsi
        plainSocket = direct && lws_is_ssl(wsi) == 0 ? Int32(lws_get_socket_fd(wsi)) : -1
        self.id = id
        self.wsi = wsi
        self.batching = batching
        self.peer = peer
        self.upgradeHeaders = upgradeHeaders
        lastHeardNs = WritePacer.now()
    }

    /// Something arrived from the peer (a message, a PONG): it is alive.
    @inline(__always)
    func heard(now: UInt64) {
        lastHeardNs = now
        pingSentNs = 0
    }

    public func forgetUpgradeHeaders() { upgradeHeaders = [:] }

    public var queuedFrames: Int { queue.count }
    public var queuedBytes: Int { queue.bytes }
    public var isClosing: Bool { closeRequest != nil }

    /// Queues a frame shared with other connections; the bytes are not copied.
    public func send(_ frame: OutFrame) {
        if push(frame) { writerRef._withUnsafeGuaranteedRef { $0.queued(self) } }
    }

    /// Queues without telling the writer; false once closing (nothing may follow the close).
    @inline(__always)
    func push(_ frame: OutFrame) -> Bool {
        guard closeRequest == nil else { return false }
        queue.push(frame)
        return true
    }

    /// Drops what is queued and not yet written (conflation: the caller
    /// replaces it with a snapshot).
    public func discardQueued() {
        queue.removeAll()
        drainWatched = true
    }

    /// Sends a close frame after what is queued (or at once when `flush` is
    /// false), then drops the connection; `/metrics` counts it under
    /// `cause`. `deadlineSeconds` bounds a peer that never reads: lws then
    /// drops it without ceremony.
    public func close(code: CloseCode, reason: String, cause: CloseCause, flush: Bool = true, deadlineSeconds: Int32 = 5) {
        guard closeRequest == nil else { return }
        if !flush { queue.removeAll() }
        closeRequest = (code.rawValue, String(reason.utf8.prefix(120)) ?? "")
        closeCause = cause
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, deadlineSeconds)
        writerRef._withUnsafeGuaranteedRef { $0.request(self) }
    }
}
