import FoldCore
import FoldTransport

/// One board at run time: what is committed (and so may be shown), and the
/// head that accepted-but-uncommitted changes have reached.
///
/// Service thread only.
final class BoardState {
    let name: String
    /// Committed position; nil while the board exists only at the head (being created).
    var committed: Board?
    var epoch: String
    var rev: Int
    /// Head position: committed plus pending changes; nil when a pending delete removed it.
    var head: Board?
    var headEpoch: String
    var headRev: Int
    /// Encoded patch messages for the last revs, oldest first: `history[i]` is rev `rev - history.count + 1 + i`.
    var history = Ring<OutFrame>()
    /// The snapshot message at `rev`, built on first need and shared.
    private var snapshotCache: (rev: Int, epoch: String, frame: OutFrame)?
    var lastPresenceNs: UInt64 = 0

    init(name: String, epoch: String, rev: Int, board: Board?, head: Board?) {
        self.name = name
        self.committed = board
        self.epoch = epoch
        self.rev = rev
        self.head = head
        self.headEpoch = epoch
        self.headRev = rev
    }

    /// The shared snapshot message of the committed state.
    func snapshot() -> OutFrame? {
        guard let committed else { return nil }
        if let c = snapshotCache, c.rev == rev, c.epoch == epoch { return c.frame }
        let frame = OutFrame(ServerMessage.snapshot(board: name, epoch: epoch, rev: rev, state: committed.encoded()))
        snapshotCache = (rev, epoch, frame)
        return frame
    }

    /// The patch messages after `since`, when they are all still kept.
    func patches(after since: Position) -> [OutFrame]? {
        guard committed != nil, since.epoch == epoch, since.rev <= rev else { return nil }
        let missing = rev - since.rev
        guard missing <= history.count else { return nil }
        return history.suffix(missing)
    }

    /// Forgets the head and goes back to what is committed (a commit failed).
    func rollBack() {
        head = committed
        headEpoch = epoch
        headRev = rev
    }
}
