/// What `WebClient` reports. Every method runs on the client's service
/// thread (the thread inside `WebClient.run()`), never reentrantly from a
/// `WebClient` call.
public protocol WebClientDelegate: AnyObject {
    /// The WebSocket handshake completed.
    func opened(_ socket: ClientSocket)
    /// One whole text message, reassembled from its fragments.
    func received(_ socket: ClientSocket, _ message: [UInt8])
    /// The socket is gone, whether it ever opened or not; it is not used again.
    func closed(_ socket: ClientSocket, _ reason: ClientCloseReason)
    /// The answer to `WebClient.fetch`: the status and body, or why there is none.
    func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>)
    /// Another thread called `waker.wake()` (lws also wakes itself, so this
    /// must be cheap and idempotent).
    func woken()
}

/// A complete HTTP answer.
public struct HTTPReply: Sendable {
    public var status: Int
    public var body: [UInt8]
}
