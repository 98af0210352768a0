import FoldCore

/// A batch as handed to the committer thread: board values, not bytes, so
/// the encoding of whole documents happens off the service thread.
struct SealedBatch: Sendable {
    struct Put: Sendable {
        var name: String
        var epoch: String
        var rev: Int
        var board: Board
    }

    var id: UInt64
    var deletions: [String] = []
    var puts: [Put] = []
    var changes: [StoredChange] = []
    var historyLimit: Int

    func encoded() -> CommitBatch {
        var batch = CommitBatch(historyLimit: historyLimit)
        batch.deletions = deletions
        batch.boards = puts.map { StoredBoard(name: $0.name, epoch: $0.epoch, rev: $0.rev, state: $0.board.encoded()) }
        batch.changes = changes
        return batch
    }
}
