/// What the transport reports. Every method runs on the service thread.
public protocol WebServerDelegate: AnyObject {
    /// Decides a WebSocket upgrade before it completes: nil accepts, an HTTP
    /// status (403, 503...) refuses.
    func admit(path: String, headers: [String: String], peer: String) -> Int?
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
}
