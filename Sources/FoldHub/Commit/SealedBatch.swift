import FoldCore

/// A batch as handed to the committer thread: board values, not bytes, so
/// the encoding of whole documents happens off the service thread.
public struct SealedBatch: Sendable {
    public struct Put: Sendable {
        public var name: String
        public var epoch: String
        public var rev: Int
        public var board: Board
    }

    public var id: UInt64
    public var deletions: [String] = []
    public var puts: [Put] = []
    public var changes: [StoredChange] = []
    public var created: Set<String> = []
    public var checks: [PositionCheck] = []
    public var historyLimit: Int
    /// history-days, in milliseconds.
    public var keepMs = 0

    /// The store's batch, at commit time `now` (UTC milliseconds, read by the committer).
    public func encoded(now: Int = 0) -> CommitBatch {
        var batch = CommitBatch(historyLimit: historyLimit, now: now, keepMs: keepMs)
        batch.deletions = deletions
        batch.boards = puts.map { StoredBoard(name: $0.name, epoch: $0.epoch, rev: $0.rev, state: $0.board.encoded()) }
        batch.changes = changes
        batch.created = created
        batch.checks = checks
        return batch
    }
}
