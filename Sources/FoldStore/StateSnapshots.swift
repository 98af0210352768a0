import FoldCore

/// Which boards' whole state a commit writes. A board's row holds its
/// state as of some rev; the change log holds every change after it, in
/// the same transactions, so the state at any commit is that row with the
/// changes after it applied (`SQLiteStore.loadBoards` does so). Writing the
/// row at most every `maxRevsBehind` revs, rather than in every commit that
/// touches the board, saves a row of ≈ 600 bytes and its pages per commit
/// per board. Pure bookkeeping, on the committer's thread.
struct StateSnapshots {
    /// What the file holds for a board: its epoch, the rev of the stored
    /// state, and the rev of its last logged change.
    struct Stored: Equatable {
        var epoch: String
        var stateRev: Int
        var head: Int
        /// When its log was last pruned (commit time, ms; 0: not since loaded).
        var prunedAt = 0
    }

    /// The longest a board's log goes unpruned while it changes (ms).
    static let pruneEveryMs = 60_000

    /// The most revs a stored state may lag its board (fewer when fewer changes are kept).
    static let maxRevsBehind = 64

    private(set) var boards: [String: Stored] = [:]

    /// A board just loaded from the file.
    mutating func loaded(_ name: String, _ stored: Stored) { boards[name] = stored }

    /// The boards of `batch` whose state must be written and whose log is
    /// pruned, and the bookkeeping once the batch is committed (applied only
    /// then: a batch rolled back leaves the file as it was). A state is
    /// written unless the batch logs every rev from what the file holds up to
    /// the board's new rev, in its epoch, and the state then lags by fewer
    /// than the revs kept (pruning must never take a change the state needs).
    /// A log is pruned with its state, or once `pruneEveryMs` passed: not in
    /// every commit, where it was a query per board for nothing to delete.
    func plan(_ batch: CommitBatch) -> (write: Set<String>, prune: Set<String>, after: [String: Stored]) {
        var after = boards
        for name in batch.deletions { after[name] = nil }
        var logged: [String: Int] = [:]
        logged.reserveCapacity(batch.boards.count)
        var broken: Set<String> = []
        for c in batch.changes {
            let head = logged[c.board] ?? after[c.board]?.head
            if head.map({ c.rev != $0 + 1 }) ?? true { broken.insert(c.board) }
            logged[c.board] = c.rev
        }
        let lag = min(Self.maxRevsBehind, batch.historyLimit)
        var write: Set<String> = [], prune: Set<String> = []
        write.reserveCapacity(batch.boards.count)
        prune.reserveCapacity(batch.boards.count)
        for b in batch.boards {
            var s: Stored
            if let known = after[b.name], known.epoch == b.epoch, !batch.created.contains(b.name), !broken.contains(b.name),
               logged[b.name] == b.rev, b.rev - known.stateRev < lag {
                s = known
                s.head = b.rev
            } else {
                write.insert(b.name)
                s = Stored(epoch: b.epoch, stateRev: b.rev, head: b.rev, prunedAt: after[b.name]?.prunedAt ?? 0)
            }
            if write.contains(b.name) || batch.now &- s.prunedAt >= Self.pruneEveryMs || s.prunedAt == 0 {
                prune.insert(b.name)
                s.prunedAt = batch.now
            }
            after[b.name] = s
        }
        return (write, prune, after)
    }

    mutating func committed(_ after: [String: Stored]) { boards = after }

    /// `row` (a board's stored state) brought to its last logged change by
    /// `after`, the changes logged past the row's rev, oldest first.
    static func head(of row: StoredBoard, after: [StoredChange]) throws(StoreError) -> StoredBoard {
        try checkRun(of: row.name, from: row.rev, after)
        guard let last = after.last else { return row }
        var board = row
        board.state = try replay(state: row.state, changes: after, board: row.name)
        board.rev = last.rev
        return board
    }

    /// `after` must be every rev past `rev`, in order: a gap means the log lost a change the state needs.
    static func checkRun(of board: String, from rev: Int, _ after: [StoredChange]) throws(StoreError) {
        guard after.isEmpty || after.map(\.rev) == Array(rev + 1 ... rev + after.count) else {
            throw StoreError("board '\(board)': the change log after its stored state (rev \(rev)) has a gap")
        }
    }

    /// A board's state at its last logged change: the stored state with the
    /// changes after it applied, in order (RFC 6902, as any client would).
    static func replay(state: [UInt8], changes: [StoredChange], board: String) throws(StoreError) -> [UInt8] {
        do {
            var doc = try JSONParser.parse(state, maxDepth: 512)
            for c in changes {
                doc = try JSONPatch.apply(JSONParser.parse(c.ops, maxDepth: 512), to: doc)
            }
            return try Board(trusted: doc).encoded()
        } catch {
            throw StoreError("board '\(board)': its stored state does not take the changes logged after it: \((error as? FoldError)?.message ?? "\(error)")")
        }
    }
}
