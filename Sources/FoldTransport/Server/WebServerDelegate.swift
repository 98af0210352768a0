import FoldSystem
import FoldCore

/// What the transport reports. Every method runs on the service thread.
public protocol WebServerDelegate: AnyObject {
    /// Decides a WebSocket upgrade before it completes: nil accepts; an
    /// answer (401, 403, 503 with a JSON error body) refuses, and is what
    /// the client reads, as an HTTP/1.1 response.
    func admit(path: String, headers: [String: String], peer: String) -> HTTPResponse?
    func opened(_ connection: Connection)
    /// One whole text message, reassembled, within the size limit, valid UTF-8.
    func received(_ connection: Connection, _ message: UnsafeRawBufferPointer)
    func closed(_ connection: Connection)
    /// An HTTP request with its whole body. Answer with `WebServer.respond`,
    /// now or later (after a commit, say).
    func request(_ request: HTTPRequest)
    /// Another thread called `Waker.wake()`; lws also wakes itself, so this
    /// must be cheap and idempotent.
    func woken()
    /// A connection's queue emptied after `discardQueued` (a resync): the peer reads again.
    func drained(_ connection: Connection)
    /// An event stream's queue emptied after `streamResync`.
    func streamDrained(_ id: UInt64)
    /// An event stream ended: the peer went, or the stream was ended.
    func streamClosed(_ id: UInt64)
}
