import Foundation

/// What a FoldSyncKit session needs of the network, and nothing more: a
/// WebSocket (open with headers, the incoming text messages in order, send,
/// close) and one HTTP GET (the daemon's API beside the socket: history).
/// One implementation rides on `URLSession` (`URLSessionTransport`, Apple
/// platforms; its GET works on Linux too); on Linux, FoldSyncClient's
/// `LWSTransport` implements both on libwebsockets.
public protocol SyncTransport: Sendable {
    /// Starts opening a connection to `url` offering `subprotocol`. The link
    /// is returned at once; its `incoming` ends when the connection does
    /// (`SyncLinkEnd` says how).
    func open(_ url: URL, subprotocol: String, headers: [String: String]) -> any SyncLink

    /// `GET url` with `headers`: the answer's status and body, whatever the
    /// status. Throws (any error) only when no answer came.
    func get(_ url: URL, headers: [String: String]) async throws -> HTTPAnswer
}

/// A whole HTTP answer to `SyncTransport.get`.
public struct HTTPAnswer: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
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
