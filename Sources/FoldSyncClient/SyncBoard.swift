import FoldCore
import FoldSession
import FoldSystem

/// One subscribed board: its mirror (`confirmed`, always equal to `GET` at
/// `rev`), what to show (`state`: the mirror with the actions still pending
/// applied), the stream of its changes, and its actions, each answered with
/// the rev of its `ack` or a `SyncError`. Readable from any thread; the
/// service thread writes it.
public final class SyncBoard: BoardActions, @unchecked Sendable {
    public let name: String
    let client: FoldSyncClient
    private let mirror = Locked<(state: JSON?, confirmed: JSON?, position: Position?)>((nil, nil, nil))
    private let listeners = Locked<[UInt64: AsyncStream<BoardChange>.Continuation]>([:])
    private let nextListener = Locked<UInt64>(0)

    init(name: String, client: FoldSyncClient) {
        self.name = name
        self.client = client
    }

    /// The board to show: `confirmed` with the pending actions applied on
    /// top by the daemon's rules, so an action shows the moment it is
    /// called; nil before the first snapshot and after a delete.
    public var state: JSON? { mirror.withLock { $0.state } }
    /// The daemon's board at `rev` (equal to `GET` then).
    public var confirmed: JSON? { mirror.withLock { $0.confirmed } }
    public var rev: Int? { mirror.withLock { $0.position?.rev } }
    public var epoch: String? { mirror.withLock { $0.position?.epoch } }
    /// The last `presence`: connections watching the board, and how many follow it.
    public var viewers: Int? { presence.withLock { $0.viewers } }
    public var following: Int? { presence.withLock { $0.following } }
    private let presence = Locked<(viewers: Int?, following: Int?)>((nil, nil))

    /// Every change from now on, in rev order.
    public func changes() -> AsyncStream<BoardChange> {
        AsyncStream { continuation in
            let id = nextListener.withLock { n in n += 1; return n }
            listeners.withLock { $0[id] = continuation }
            continuation.onTermination = { [weak self] _ in self?.listeners.withLock { $0[id] = nil } }
        }
    }

    /// Any action on this board; the rev after its `ack`.
    @discardableResult
    public func act(_ action: Action, ifRev: Int? = nil) async throws -> Int {
        try await client.perform(action, on: name, ifRev: ifRev)
    }

    /// The board's history (`GET /api/boards/NAME/history`, read over HTTP
    /// beside the socket with the connection's token): without parameters
    /// the latest `limit` (default 100) entries; `since`: the entries after
    /// that rev; `before`: the `limit` entries just before it. Entries
    /// oldest first; `more` says the page left some out. Typed errors:
    /// `SyncError` (the daemon's `bad_request`, `forbidden`, ..., or `disconnected`).
    public func history(since: Int? = nil, before: Int? = nil, limit: Int? = nil) async throws(SyncError) -> HistoryPage {
        try await client.history(HistoryRequest(board: name, since: since, before: before, limit: limit))
    }

    // Service thread.

    func update(state: JSON?, confirmed: JSON?, position: Position?) { mirror.withLock { $0 = (state, confirmed, position) } }

    func update(viewers: Int?, following: Int?) { presence.withLock { $0 = (viewers, following) } }

    func publish(_ change: BoardChange) {
        for c in listeners.withLock({ Array($0.values) }) { c.yield(change) }
    }

    func finish() {
        for c in listeners.withLock({ Array($0.values) }) { c.finish() }
    }
}
