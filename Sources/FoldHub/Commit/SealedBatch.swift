import FoldCore

/// A batch as handed to the committer thread: board values and record
/// drafts, not bytes, so the encoding of whole documents and the history
/// records' undo and words happen off the service thread.
public struct SealedBatch: Sendable {
    public struct Put: Sendable {
        public var name: String
        public var epoch: String
        public var rev: Int
        public var board: Board
    }

    /// A change for the log, its record still a draft.
    public struct Logged: Sendable {
        public var board: String
        public var rev: Int
        /// The change's RFC 6902 operations, encoded.
        public var ops: [UInt8]
        public var record: RecordDraft?
    }

    public var id: UInt64
    public var deletions: [String] = []
    public var puts: [Put] = []
    public var changes: [Logged] = []
    public var created: Set<String> = []
    public var historyLimit: Int
    /// history-days, in milliseconds.
    public var keepMs = 0

    /// The store's batch, at commit time `now` (UTC milliseconds, read by the committer).
    public func encoded(now: Int = 0) -> CommitBatch {
        var batch = CommitBatch(historyLimit: historyLimit, now: now, keepMs: keepMs)
        batch.deletions = deletions
        batch.boards = puts.map { StoredBoard(name: $0.name, epoch: $0.epoch, rev: $0.rev, state: $0.board.encoded()) }
        batch.changes = changes.map { StoredChange(board: $0.board, rev: $0.rev, ops: $0.ops, record: $0.record?.record()) }
        batch.created = created
        return batch
    }
}
