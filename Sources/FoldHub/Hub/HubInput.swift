import FoldCore

/// Monotonic time in nanoseconds. The hub never reads a clock: every input
/// comes with the time it happened.
public typealias Instant = UInt64

/// Everything that can happen to the hub, as plain values.
public enum HubInput {
    /// A WebSocket connection completed its upgrade. `headers` are the
    /// upgrade's (lower-case names, the query string under `query`): a token
    /// may travel there.
    case opened(id: UInt64, peer: String, headers: [String: String], batching: Bool)
    /// One whole text message; the bytes are valid only during `handle`.
    case received(id: UInt64, message: UnsafeRawBufferPointer)
    /// The connection's outgoing queue emptied: it reads again.
    case queueDrained(id: UInt64)
    /// A bounded send (`HubEffect.fanOut`) did not fit this connection's
    /// queue, so it was not queued: `bytes` is the frame's size.
    case overflowed(id: UInt64, bytes: Int)
    case closed(id: UInt64)
    case http(HubRequest)
    /// The committer's answer to `commit` or `probe`.
    case committed(CommitOutcome)
    /// The settings of a configuration that parsed and validated (SIGHUP) ...
    case reload(HubSettings)
    /// ... or why the re-read one did not.
    case reloadRefused(String)
    /// The daemon listens, with the store open: say READY and start the
    /// service manager's clocks.
    case started
    /// SIGTERM/SIGINT: finish pending commits, say goodbye, stop.
    case stop
    /// The time asked for with `wakeAt` (or any later one) has come.
    case tick
    /// Another node's commits, read from a shared store (several daemons).
    case remote(RemoteUpdate)
    /// The reader's answer to `HubEffect.readHistory`: the entries, oldest first.
    case historyRead(id: UInt64, Result<HistoryAnswer, StoreError>)
    /// The reader's answer to `HubEffect.readBoard`.
    case boardRead(board: String, BoardLoad)
}

/// An HTTP request with its whole body.
public struct HubRequest: Sendable {
    /// Names the exchange in `respond`.
    public var id: UInt64
    public var method: String
    public var path: String
    /// The query string without `?` (`&`-separated, as the transport decoded it).
    public var query: String
    /// Lower-cased header names.
    public var headers: [String: String]
    public var body: [UInt8]
    /// The peer's address (an event stream counts against `max-connections-per-ip`).
    public var peer: String

    public init(id: UInt64, method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = [], peer: String = "") {
        self.peer = peer
        self.id = id
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}
