import FoldCore

/// One board at run time: what is committed (and so may be shown), and the
/// head that accepted-but-uncommitted changes have reached.
public final class BoardState {
    public let name: String
    /// Committed position; nil while the board exists only at the head (being created).
    public internal(set) var committed: Board?
    public internal(set) var committedEpoch: String
    public internal(set) var committedRev: Int
    /// Head position: committed plus pending changes; nil when a pending delete removed it.
    var head: Board?
    var headEpoch: String
    var headRev: Int
    /// Encoded patch messages for the last revs, oldest first: `history[i]` is rev `committedRev - history.count + 1 + i`.
    var history = Ring<[UInt8]>()
    /// The snapshot message at `committedRev`, built on first need and shared.
    private var snapshotCache: (rev: Int, epoch: String, frame: [UInt8])?
    /// The keys of its committed keyed actions (`KeptKeys`).
    var keys = KeptKeys()
    /// When presence last went out for this board.
    var lastPresence: Instant?
    /// When a request last named it; it goes cold `board-idle` seconds later, unless watched.
    var lastUse: Instant = 0
    /// A `Deadline.unload` is armed for it.
    var unloadArmed = false

    init(name: String, epoch: String, rev: Int, board: Board?, head: Board?) {
        self.name = name
        self.committed = board
        self.committedEpoch = epoch
        self.committedRev = rev
        self.head = head
        self.headEpoch = epoch
        self.headRev = rev
    }

    /// A board read from the store, with its kept changes (`ops` by rev,
    /// oldest first): only a contiguous run ending at `rev` can be replayed.
    public convenience init(name: String, epoch: String, rev: Int, board: Board, changes: [StoredChange], history: Int) {
        self.init(name: name, epoch: epoch, rev: rev, board: board, head: board)
        self.history.capacity = history
        var run: [StoredChange] = []
        for c in changes where c.rev <= rev {
            if let last = run.last, last.rev + 1 != c.rev { run.removeAll() }
            run.append(c)
        }
        guard run.last?.rev == rev else { return }
        for c in run {
            self.history.append(ServerMessage.patch(board: name, epoch: epoch, rev: c.rev, ops: c.ops, by: nil))
        }
    }

    /// Keys read from the store, oldest first (past `cap`, the oldest are not kept).
    public func remember(_ stored: [StoredKey], cap: Int) { keys.remember(stored, cap: cap) }

    /// The shared snapshot message of the committed state.
    func snapshot() -> [UInt8]? {
        guard let committed else { return nil }
        if let c = snapshotCache, c.rev == committedRev, c.epoch == committedEpoch { return c.frame }
        let frame = ServerMessage.snapshot(board: name, epoch: committedEpoch, rev: committedRev, state: committed.encoded())
        snapshotCache = (committedRev, committedEpoch, frame)
        return frame
    }

    /// The patch messages after `since`, when they are all still kept.
    func patches(after since: Position) -> [[UInt8]]? {
        guard committed != nil, since.epoch == committedEpoch, since.rev <= committedRev else { return nil }
        let missing = committedRev - since.rev
        guard missing <= history.count else { return nil }
        return history.suffix(missing)
    }

    /// Forgets the head and goes back to what is committed (a commit failed).
    func rollBack() {
        head = committed
        headEpoch = committedEpoch
        headRev = committedRev
    }
}
