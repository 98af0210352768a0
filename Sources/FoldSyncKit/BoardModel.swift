import FoldCore
import FoldSession
import Observation

/// One board as a view reads it: the sections and their open flags, the
/// focus, presence, the connection, the actions still pending and the last
/// change, observable (`@Observable`). `board` is what to show: the daemon's
/// board with this app's pending actions applied on top by the daemon's own
/// rules, so a tap shows at once; `confirmed` is the daemon's as it is.
@MainActor @Observable
public final class BoardModel: BoardActions {
    public let name: String
    /// What to show; nil before the first snapshot and after a delete.
    public private(set) var board: Board?
    /// The daemon's board at `rev` (equal to `GET` then).
    public private(set) var confirmed: Board?
    public private(set) var rev: Int?
    public private(set) var epoch: String?
    /// Connections watching the board, and how many of them follow it.
    public private(set) var viewers: Int?
    public private(set) var following: Int?
    /// This app's actions on the board not answered yet.
    public private(set) var pending = 0
    public private(set) var lastChange: BoardChange?

    @ObservationIgnored private weak var session: FoldSyncSession?
    @ObservationIgnored private var listeners: [Int: AsyncStream<BoardChange>.Continuation] = [:]
    @ObservationIgnored private var nextListener = 0

    init(name: String, session: FoldSyncSession) {
        self.name = name
        self.session = session
    }

    /// Where the connection stands (the session's).
    public var connection: SyncState { session?.state ?? .closed }
    public var sections: [Section] { board?.sections ?? [] }
    public var focus: Focus? { board?.focus }
    public func isOpen(_ section: String) -> Bool { sections.first { $0.id == section }?.expanded ?? false }
    /// The board as a diffable data source wants it.
    public var list: SectionList { SectionList(board) }

    /// Every change from now on, in order: the daemon's, and local ones (an
    /// action shown at once, or rolled back with the reason).
    public func changes() -> AsyncStream<BoardChange> {
        AsyncStream { continuation in
            nextListener += 1
            let id = nextListener
            listeners[id] = continuation
            continuation.onTermination = { _ in Task { @MainActor [weak self] in self?.listeners[id] = nil } }
        }
    }

    /// Any action on this board; the rev of its `ack`. Typed errors: `SyncError`.
    @discardableResult
    public func act(_ action: Action, ifRev: Int? = nil) async throws -> Int {
        guard let session else { throw SyncError(code: "closed", message: "the session is gone") }
        pending += 1
        defer { pending -= 1 }
        return try await session.perform(action, on: name, ifRev: ifRev)
    }

    /// The board's history (`GET /api/boards/NAME/history`, read over HTTP
    /// beside the socket with the session's token): without parameters the
    /// latest `limit` (default 100) entries; `since`: the entries after that
    /// rev; `before`: the `limit` entries just before it. Entries oldest
    /// first; `more` says the page left some out. Typed errors: `SyncError`
    /// (the daemon's `bad_request`, `forbidden`, ..., or `disconnected`).
    public func history(since: Int? = nil, before: Int? = nil, limit: Int? = nil) async throws(SyncError) -> HistoryPage {
        guard let session else { throw SyncError(code: "closed", message: "the session is gone") }
        return try await session.history(HistoryRequest(board: name, since: since, before: before, limit: limit))
    }

    // The session's side.

    func show(state: JSON?, confirmed: JSON?, position: Position?) {
        let shown = state.flatMap { try? Board(trusted: $0) }
        if shown != board { board = shown }
        let daemon = confirmed.flatMap { try? Board(trusted: $0) }
        if daemon != self.confirmed { self.confirmed = daemon }
        if position?.rev != rev { rev = position?.rev }
        if position?.epoch != epoch { epoch = position?.epoch }
    }

    func presence(viewers: Int?, following: Int?) {
        self.viewers = viewers
        self.following = following
    }

    func publish(_ change: BoardChange) {
        lastChange = change
        for c in listeners.values { c.yield(change) }
    }

    func finish() {
        for c in listeners.values { c.finish() }
        listeners = [:]
    }
}
