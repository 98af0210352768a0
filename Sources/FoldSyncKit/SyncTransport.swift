import Foundation

/// What a FoldSyncKit session needs of a WebSocket, and nothing more: open
/// with headers, the incoming text messages in order, send, close. One
/// implementation rides on `URLSessionWebSocketTask` (`URLSessionTransport`,
/// Apple platforms); on Linux, FoldSyncClient's `LWSTransport` implements
/// it on libwebsockets.
public protocol SyncTransport: Sendable {
    /// Starts opening a connection to `url` offering `subprotocol`. The link
    /// is returned at once; its `incoming` ends when the connection does
    /// (`SyncLinkEnd` says how).
    func open(_ url: URL, subprotocol: String, headers: [String: String]) -> any SyncLink
}

/// One connection. `incoming` may be iterated once.
public protocol SyncLink: AnyObject, Sendable {
    /// The daemon's messages, in order; finishes by throwing `SyncLinkEnd`.
    var incoming: AsyncThrowingStream<String, Error> { get }
    func send(_ text: String)
    /// A clean close (code 1000 and `reason`); `incoming` ends after it.
    func close(reason: String)
}

/// How a connection ended.
public enum SyncLinkEnd: Error, Sendable, Equatable, CustomStringConvertible {
    /// It never opened (unreachable, or the handshake went wrong).
    case failed(String)
    /// The upgrade was answered with this HTTP status (401: the token was refused).
    case refused(status: Int)
    /// It was open and ended; `code` from the peer's close frame, if any.
    case closed(code: Int?, reason: String)

    public var description: String {
        switch self {
        case .failed(let why): return why
        case .refused(let status): return "refused: HTTP \(status)"
        case .closed(let code, let reason): return "closed (\(code.map(String.init) ?? "no close frame")\(reason.isEmpty ? "" : ": " + reason))"
        }
    }

    /// The HTTP status that refused the upgrade, for the session machine.
    public var status: Int? {
        if case .refused(let status) = self { return status }
        return nil
    }
}
