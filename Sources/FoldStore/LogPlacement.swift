import FoldCore

/// Where each logged change of a commit goes in the SQLite store: straight
/// into its board's `chunks` (a row per board and run), or into the commit's
/// one `journal` row, to be moved into a chunk later with the board's next
/// changes. Rows keyed by board put every board's new changes on a page of
/// their own: a commit of 100 changes on 50 boards wrote 50 pages, 5 KB per
/// change, against one board's state row in the build before history. A
/// journal row holds them all on consecutive pages; a board's staged changes
/// go to a chunk once there are `flushAt` of them, so its history is still
/// read from a few rows. Pure bookkeeping, on the committer's thread.
struct LogPlacement {
    /// A board with changes waiting in the journal: their epoch, how many,
    /// and the journal row that holds the oldest (the rows before it may go).
    /// The changes themselves are in `WaitingChanges`.
    struct Staged: Equatable {
        var epoch: String
        var count: Int
        var since: Int
    }

    /// A board's staged changes go to a chunk once there are this many.
    static let flushAt = 64
    /// A board with this many changes in a commit and none staged writes them as a chunk at once.
    static let directAt = 16
    /// Staged changes are moved once the journal row holding them is this
    /// many rows old, so an idle board does not keep the journal growing.
    static let journalSpan = 512

    private(set) var boards: [String: Staged] = [:]
    /// The seq of the next journal row.
    private(set) var nextSeq = 1
    /// Journal rows below this seq are gone.
    private(set) var keptFrom = 1

    /// What happens to a board's staged changes.
    enum Update: Equatable {
        case append([StoredChange])
        /// Replaced by these (none: the board has nothing staged).
        case replace([StoredChange])
    }

    /// A `chunks` row: the board's staged changes first when `staged`, then `changes`.
    struct Chunk: Equatable {
        var board: String
        var staged: Bool
        var changes: [StoredChange]
    }

    struct Plan {
        var chunks: [Chunk] = []
        /// This commit's journal row (empty: none), at `seq`.
        var journal: [StagedRun] = []
        var seq = 0
        /// Journal rows below this seq are deleted (nil: none).
        var dropBelow: Int?
        var updates: [String: Update] = [:]
        fileprivate var boards: [String: Staged?] = [:]
        fileprivate var nextSeq = 0
    }

    init() {}

    /// What waits in the journal's rows (oldest row first), per board, with
    /// the row its oldest change is in: a run of another epoch replaces what
    /// the board had waiting before it.
    static func waiting(in journal: [(seq: Int, runs: [StagedRun])]) -> [String: (epoch: String, since: Int, changes: [StoredChange])] {
        var out: [String: (epoch: String, since: Int, changes: [StoredChange])] = [:]
        for (seq, runs) in journal {
            for run in runs where !run.changes.isEmpty {
                if out[run.board]?.epoch == run.epoch { out[run.board]!.changes += run.changes } else { out[run.board] = (run.epoch, seq, run.changes) }
            }
        }
        return out
    }

    /// At open: what still waits (`waiting`, less what the file no longer
    /// needs), and the seqs of the journal's rows.
    init(waiting: [String: Staged], rows: [Int]) {
        boards = waiting
        nextSeq = (rows.max() ?? 0) + 1
        keptFrom = rows.min() ?? 1
    }

    /// Where `batch`'s changes go. Boards in `flush` (pruned in this commit)
    /// move all they have staged into a chunk.
    func plan(_ batch: CommitBatch, flush: Set<String>) -> Plan {
        var plan = Plan()
        // Sized for the batch's boards once, not grown (and rehashed) a board at a time.
        let n = batch.boards.count + batch.deletions.count
        plan.boards.reserveCapacity(n)
        plan.updates.reserveCapacity(n)
        let seq = nextSeq
        func current(_ name: String) -> Staged? { plan.boards[name] ?? boards[name] }
        func move(_ name: String, then changes: [StoredChange]) {
            plan.chunks.append(Chunk(board: name, staged: true, changes: changes))
            plan.boards[name] = .some(nil)
            plan.updates[name] = .replace([])
        }
        for name in batch.deletions where current(name) != nil {
            plan.boards[name] = .some(nil)
            plan.updates[name] = .replace([])
        }
        var epochs: [String: String] = [:]
        epochs.reserveCapacity(batch.boards.count)
        for b in batch.boards { epochs[b.name] = b.epoch }
        var runs: [(board: String, changes: [StoredChange])] = []
        var index: [String: Int] = [:]
        runs.reserveCapacity(batch.boards.count)
        index.reserveCapacity(batch.boards.count)
        for c in batch.changes {
            if let i = index[c.board] { runs[i].changes.append(c) } else {
                index[c.board] = runs.count
                runs.append((c.board, [c]))
            }
        }
        var toFlush = flush
        for (name, s) in boards where seq - s.since >= Self.journalSpan { toFlush.insert(name) }
        for (name, changes) in runs {
            let epoch = epochs[name] ?? ""
            let flushing = toFlush.remove(name) != nil
            if var s = current(name), s.epoch == epoch {
                if s.count + changes.count >= Self.flushAt || flushing {
                    move(name, then: changes)
                } else {
                    s.count += changes.count
                    plan.boards[name] = .some(s)
                    plan.updates[name] = .append(changes)
                    plan.journal.append(StagedRun(board: name, epoch: epoch, changes: changes))
                }
                continue
            }
            // Staged in an earlier epoch: those go to a chunk of their own.
            if current(name) != nil { move(name, then: []) }
            if changes.count >= Self.directAt || flushing {
                plan.chunks.append(Chunk(board: name, staged: false, changes: changes))
            } else {
                plan.boards[name] = .some(Staged(epoch: epoch, count: changes.count, since: seq))
                plan.updates[name] = .replace(changes)
                plan.journal.append(StagedRun(board: name, epoch: epoch, changes: changes))
            }
        }
        for name in toFlush where current(name) != nil { move(name, then: []) }
        if !plan.journal.isEmpty { plan.seq = seq }
        plan.nextSeq = plan.journal.isEmpty ? seq : seq + 1
        var oldest = plan.nextSeq
        for (name, s) in boards where plan.boards[name] == nil { oldest = min(oldest, s.since) }
        for case let (_, s?) in plan.boards { oldest = min(oldest, s.since) }
        if oldest > keptFrom { plan.dropBelow = oldest }
        return plan
    }

    /// The plan's bookkeeping, once its transaction committed.
    mutating func committed(_ plan: Plan) {
        for (name, s) in plan.boards { boards[name] = s }
        nextSeq = plan.nextSeq
        if let below = plan.dropBelow { keptFrom = below }
    }
}
