import FoldCore

/// A batch as handed to the committer thread: board values and what each
/// history record is made of, not bytes, so the encoding of whole documents
/// and the building of records happen off the service thread.
public struct SealedBatch: Sendable {
    public struct Put: Sendable {
        public var name: String
        public var epoch: String
        public var rev: Int
        public var board: Board
    }

    /// A change for the log; `record` becomes its history record in `encoded`.
    public struct Logged: Sendable {
        public var board: String
        public var rev: Int
        public var ops: [UInt8]
        public var record: RecordSource?
    }

    public var id: UInt64
    public var deletions: [String] = []
    public var puts: [Put] = []
    public var changes: [Logged] = []
    public var created: Set<String> = []
    public var checks: [PositionCheck] = []
    public var keys: [StoredKey] = []
    public var forgottenKeys: [KeyName] = []
    public var keyKeepMs = 0
    public var historyLimit: Int
    /// history-days, in milliseconds.
    public var keepMs = 0

    /// The store's batch, at commit time `now` (UTC milliseconds, read by the committer).
    public func encoded(now: Int = 0) -> CommitBatch {
        var batch = CommitBatch(historyLimit: historyLimit, now: now, keepMs: keepMs)
        batch.deletions = deletions
        batch.boards = puts.map { StoredBoard(name: $0.name, epoch: $0.epoch, rev: $0.rev, document: $0.board) }
        batch.changes = changes.map { StoredChange(board: $0.board, rev: $0.rev, ops: $0.ops, record: $0.record?.record(at: now)) }
        batch.recordsTimed = true
        batch.created = created
        batch.checks = checks
        // A key's `at` stays 0: the store gives it the batch's `now`.
        batch.keys = keys
        batch.forgottenKeys = forgottenKeys
        batch.keyKeepMs = keyKeepMs
        return batch
    }
}
