/// A board as the store keeps it: the encoded document at a position.
public struct StoredBoard: Sendable, Equatable {
    public var name: String
    public var epoch: String
    public var rev: Int
    /// The board document, encoded JSON (empty while `document` holds it).
    public var state: [UInt8]
    /// The document not yet encoded: a batch leaves it to the store, which
    /// encodes only the states it writes (`encodedState`). SQLite writes a
    /// busy board's state once per 64 revs, not in every commit.
    public var document: Board?

    public init(name: String, epoch: String, rev: Int, state: [UInt8]) {
        self.name = name
        self.epoch = epoch
        self.rev = rev
        self.state = state
    }

    public init(name: String, epoch: String, rev: Int, document: Board) {
        self.init(name: name, epoch: epoch, rev: rev, state: [])
        self.document = document
    }

    /// The encoded document, whichever way it was given.
    public var encodedState: [UInt8] { document?.encoded() ?? state }
}

/// One accepted change in a board's log: the RFC 6902 operations, encoded,
/// that take the board from `rev - 1` to `rev`, and who asked for it (nil
/// for changes written before the store kept history).
public struct StoredChange: Sendable, Equatable {
    public var board: String
    public var rev: Int
    public var ops: [UInt8]
    public var record: ChangeRecord?
    /// The action keys answered with this rev, as a shared store's follower
    /// reads them beside the change (empty everywhere else).
    public var keys: [StoredKey] = []

    public init(board: String, rev: Int, ops: [UInt8], record: ChangeRecord? = nil) {
        self.board = board
        self.rev = rev
        self.ops = ops
        self.record = record
    }
}

/// Where a node judged an answer it gave without a change (a no-op, an
/// `ifRev` conflict, a refusal read off the board): a shared store confirms
/// the board still stands there, under the same row lock as a change, or
/// refuses the batch (`StoreError.moved`) so the action is judged again on
/// the store's head. `epoch` nil: the board was absent.
public struct PositionCheck: Sendable, Equatable {
    public var name: String
    public var epoch: String?
    public var rev: Int

    public init(name: String, epoch: String?, rev: Int) {
        self.name = name
        self.epoch = epoch
        self.rev = rev
    }
}

/// Everything that arrived together, committed together (group commit):
/// deletions first, then each touched board's latest state, then the log.
public struct CommitBatch: Sendable {
    public var deletions: [String] = []
    public var boards: [StoredBoard] = []
    public var changes: [StoredChange] = []
    /// Boards this batch creates (at a fresh epoch). Every other board in it
    /// was built on the position this daemon last saw: a shared store
    /// refuses the batch when that row is gone or moved.
    public var created: Set<String> = []
    /// Answers given without a change, to confirm against a shared store's
    /// head (a single-node store is its own head: it ignores them).
    public var checks: [PositionCheck] = []
    /// Keys of the actions in this batch, and of keyed no-ops.
    public var keys: [StoredKey] = []
    /// Kept keys past the count the hub keeps per board: deleted.
    public var forgottenKeys: [KeyName] = []
    /// A key is kept at least this long (action-key-hours, ms) and while its
    /// rev is among the board's last `historyLimit`; older ones are pruned
    /// when the board's keys are next written.
    public var keyKeepMs = 0
    /// Changes kept per board whatever their age; older ones are pruned in
    /// the same transaction once they are also older than `keepMs`.
    public var historyLimit: Int
    /// The commit time (UTC, milliseconds since 1970): every record's `at`.
    public var now: Int = 0
    /// How long a change is kept (history-days), in milliseconds.
    public var keepMs: Int = 0
    /// Every record already carries its time (the committer's batches): the
    /// store need not look for one at 0 to give it `now`.
    public var recordsTimed = false

    public init(historyLimit: Int, now: Int = 0, keepMs: Int = 0) {
        self.historyLimit = historyLimit
        self.now = now
        self.keepMs = keepMs
    }

    /// Changes of a board at or below this rev may be pruned (when also older than `keepMs`).
    public func prunable(below rev: Int) -> Int { rev - historyLimit }
    /// Changes committed before this time (ms) may be pruned; with no age
    /// to keep (`keepMs` 0) every change past `historyLimit` goes.
    public var cutoff: Int { keepMs <= 0 ? .max : now &- keepMs }

    public var isEmpty: Bool { deletions.isEmpty && boards.isEmpty && changes.isEmpty && keys.isEmpty && forgottenKeys.isEmpty }
}

/// Where a board's history is read from: the store itself, or a reader of
/// its own (`BoardStore.historyReader`).
public protocol HistorySource: AnyObject {
    /// A board's kept changes with their records, oldest first (see `HistoryQuery`).
    func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange]
}

/// A second way into the store that only reads history, for a thread of its
/// own: history and revert reads never wait in line with commits, nor make
/// commits wait. Each read sees every change committed before it began.
public protocol HistoryReader: HistorySource {
    /// A board's document at its last committed change and its last
    /// `history` changes, read in one transaction; nil when there is no such board.
    func readBoard(_ name: String, history: Int) throws(StoreError) -> BoardRead?
    /// Closes the reader's handles; nothing may be called afterwards.
    func close()
}

/// The durable store behind the daemon: SQLite (one node) or PostgreSQL
/// (several nodes on one database).
///
/// Used by one thread at a time: start-up, then the committer thread.
public protocol BoardStore: HistorySource {
    /// Every board, at its last committed position.
    func loadBoards() throws(StoreError) -> [StoredBoard]
    /// Every board's name and position, without its document: what the
    /// daemon reads at start.
    func loadCatalog() throws(StoreError) -> [CatalogEntry]
    /// A board's kept changes with `rev > after`, oldest first.
    func loadChanges(board: String, after rev: Int) throws(StoreError) -> [StoredChange]
    /// Every kept action key, each board's oldest first.
    func loadKeys() throws(StoreError) -> [StoredKey]
    /// Commits the batch atomically and durably, or throws and commits nothing.
    func commit(_ batch: CommitBatch) throws(StoreError)
    /// A cheap write that succeeds only when the store accepts writes again.
    func probe() throws(StoreError)
    /// Creates a board unless one of that name exists; true when this call created it.
    func createIfAbsent(_ board: StoredBoard) throws(StoreError) -> Bool
    /// A reader of its own on the same store (another connection), for a thread other than the committer's.
    func historyReader() throws(StoreError) -> any HistoryReader & Sendable
    /// Called by the committer after `idleEvery` seconds without work (nil:
    /// never), so a shared store lets go of a lock kept too long. An
    /// embedded store asks for no wake-ups.
    func idle()
    var idleEvery: Double? { get }
    /// A clean stop: everything committed is in the main database file and
    /// the engine's handles are closed; nothing may be called afterwards.
    func close()
    /// Connections to a server made again after one broke (any thread; 0 for an embedded engine).
    var reconnects: Int { get }
    /// The schema versions when opening upgraded a store of an earlier release, for the log.
    var upgradedSchema: (from: Int, to: Int)? { get }
    /// True when `commit` returns once its batch is written, before it is
    /// durable, and `sync` makes it so: the committer writes the next batch
    /// while the last one syncs. Nothing may be acknowledged before its sync.
    var syncsApart: Bool { get }
    /// Makes every batch `commit` returned from durable, or throws (and then
    /// refuses every later commit). When `syncsApart` only, from one thread
    /// other than the committer's: the one exception to one thread at a time.
    func sync() throws(StoreError)
}

/// What most engines answer: nothing to reconnect, nothing upgraded.
extension BoardStore {
    public func idle() {}
    public var idleEvery: Double? { nil }
    public var reconnects: Int { 0 }
    public var upgradedSchema: (from: Int, to: Int)? { nil }
    public var syncsApart: Bool { false }
    public func sync() throws(StoreError) {}
}

/// A store failure, with the engine's own words.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// A shared store refused the batch because another daemon moved one of
    /// its boards first: nothing was written, and the actions can be re-applied on the newer state.
    public var moved = false
    /// With `moved`: the refused batch's boards as they stand, read while
    /// their rows were locked, so the daemon can apply them and try again at
    /// once instead of waiting for its follower (which would let the node
    /// that just won commit again first, every time).
    public var caughtUp: [StoreUpdate] = []
    /// The store was written by a newer foldsyncd: refused, not misread (exit status 2).
    public var schemaTooNew = false
    /// Another daemon holds the SQLite store: refused at start (exit status 2).
    public var heldElsewhere = false
    public init(_ description: String, moved: Bool = false, schemaTooNew: Bool = false) {
        self.description = description
        self.moved = moved
        self.schemaTooNew = schemaTooNew
    }
}
