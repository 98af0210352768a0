import CLibWebSockets
import FoldCore

/// One outgoing WebSocket connection (one attempt: a reconnect is a new
/// socket). Service thread only, like every field: the owner sends and
/// closes from delegate callbacks or timers, and lws drains the queue in the
/// CLIENT_WRITEABLE callback, one frame per write.
public final class ClientSocket {
    public enum State: Sendable, Equatable { case connecting, open, closing, closed }

    public let id: UInt64
    public let endpoint: Endpoint
    public internal(set) var state: State = .connecting
    /// The subprotocol the server answered with, once open.
    public internal(set) var subprotocol: String?
    /// Set by lws once the connection exists (stable memory: lws writes it later).
    let wsiSlot: UnsafeMutablePointer<OpaquePointer?>
    var queue: [OutFrame] = []
    var closeRequest: (code: CloseCode, reason: String)?
    /// Code and reason of the peer's close frame, if it sent one.
    var peerClose: (code: CloseCode, reason: String)?
    /// The message being reassembled from fragments.
    var rx: [UInt8] = []

    init(id: UInt64, endpoint: Endpoint) {
        self.id = id
        self.endpoint = endpoint
        wsiSlot = .allocate(capacity: 1)
        wsiSlot.initialize(to: nil)
    }

    deinit { wsiSlot.deallocate() }

    var wsi: OpaquePointer? { wsiSlot.pointee }

    /// Queues one text message; dropped unless the socket is open.
    public func send(_ text: [UInt8]) {
        guard state == .open, closeRequest == nil, let wsi else { return }
        queue.append(OutFrame(text))
        if queue.count == 1 { lws_callback_on_writable(wsi) }
    }

    /// Sends a close frame after what is queued, then drops the connection.
    /// A connection still being set up is abandoned.
    public func close(code: CloseCode = .normal, reason: String = "") {
        guard state == .open || state == .connecting, let wsi else { return }
        closeRequest = (code, String(reason.utf8.prefix(120)) ?? "")
        state = .closing
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, 2)
        lws_callback_on_writable(wsi)
    }
}

/// Why a socket ended.
public enum ClientCloseReason: Sendable, Equatable, CustomStringConvertible {
    /// It never opened: unreachable, or the handshake went wrong.
    case failed(String)
    /// The server answered the upgrade with this HTTP status (401: the
    /// token was refused; 503: the daemon is full or stopping).
    case refused(status: Int)
    /// It was open and ended; `code` from the peer's close frame, or nil
    /// when the TCP connection just went away.
    case closed(code: CloseCode?, reason: String)

    public var description: String {
        switch self {
        case .failed(let why): return why
        case .refused(401): return "token refused (HTTP 401)"
        case .refused(let status): return "upgrade refused (HTTP \(status))"
        case .closed(let code?, let reason): return reason.isEmpty ? "closed (\(code))" : "closed (\(code) \(reason))"
        case .closed(nil, _): return "connection lost"
        }
    }
}
