import FoldCore

/// Where each kept key is, per board, in the order written: which row of
/// `key_commits` holds it (`KeyPack`: every board's keys of one commit), and
/// how many kept keys each row still holds. A row is deleted, by rowid,
/// when its last key goes: the oldest first when the hub forgets them past
/// its count bound, and from the front while past both the age and the
/// history bound (a key's time and rev grow with its place). A board that
/// goes quiet keeps its last keys, and they would keep their rows and every
/// other board's dead keys in them: once the rows hold more dead keys than
/// live ones (and `slack` more), the oldest rows that are at least half dead
/// are rewritten (`compactable`, `moved`), so the table stays within twice
/// the keys kept. Built from the table at the first read or commit.
final class KeyQueues {
    struct Key: Equatable {
        /// The rowid of the row that holds the key.
        var row: Int
        /// The key's `PackedKey.hash`: the hub forgets a board's keys oldest
        /// first, so the first row with the hash is the one.
        let hash: UInt64
        let rev: Int
        let at: Int
    }

    private struct RowCount {
        var live: Int
        var written: Int
    }

    /// Dead keys tolerated beyond as many as are live before rows are rewritten.
    static let slack = 4096

    /// A board's keys in the order written, from `head` (those before it
    /// are gone). A class, so a key filed or forgotten looks its board up once.
    private final class Queue {
        var keys: [Key] = []
        var head = 0
    }

    private var queues: [String: Queue] = [:]
    /// Kept and written keys per row; a row leaves when none is kept.
    private var rows: [Int: RowCount] = [:]
    /// Rowids in the order written (some gone), from `orderHead`.
    private var order: [Int] = []
    private var orderHead = 0
    /// Where `compactable` looks next.
    private var scanAt = 0
    /// The keys kept.
    private(set) var count = 0
    /// The keys the rows were written with, dead or alive.
    private(set) var storedKeys = 0

    var rowCount: Int { rows.count }

    /// Keys of `board` (in the order written), each in its `row`.
    func wrote(board: String, _ keys: [Key]) {
        guard !keys.isEmpty else { return }
        queue(board).keys.append(contentsOf: keys)
        var i = 0
        while i < keys.count {
            var j = i + 1
            while j < keys.count && keys[j].row == keys[i].row { j += 1 }
            add(keys[i].row, j - i)
            i = j
        }
    }

    /// A commit's keys, written together in `row` at `at` (a key's own
    /// `at` when it has one): each board's run of `keys` (`KeyGrouping`), in order.
    func wrote(row: Int, at: Int, _ keys: UnsafeBufferPointer<StoredKey>, grouping: KeyGrouping, groups: Int) {
        var n = 0
        for g in 0..<groups {
            let run = grouping.run(g), first = keys[run.first!]
            let q = queue(first.board)
            // Taken out while appended to, so the queue is not checked key by key.
            var filed = q.keys
            q.keys = []
            let time = first.at == 0 ? at : first.at
            for i in run { filed.append(Key(row: row, hash: keys[i].packed.hash, rev: keys[i].rev, at: time)) }
            q.keys = filed
            n += run.count
        }
        if n > 0 { add(row, n) }
    }

    private func queue(_ board: String) -> Queue {
        if let q = queues[board] { return q }
        let q = Queue()
        queues[board] = q
        return q
    }

    private func add(_ row: Int, _ n: Int) {
        if let i = rows.index(forKey: row) {
            rows.values[i].live += n
            rows.values[i].written += n
        } else {
            rows[row] = RowCount(live: n, written: n)
            order.append(row)
        }
        count += n
        storedKeys += n
    }

    /// `key`, which the hub forgot (its oldest, so at the front), leaves;
    /// returns its row's rowid when that was the row's last key.
    func forget(board: String, key: PackedKey) -> Int? {
        guard let q = queues[board], let i = q.keys[q.head...].firstIndex(where: { $0.hash == key.hash }) else { return nil }
        let row = q.keys[i].row
        if i == q.head {
            advance(q, to: i + 1)
        } else {
            q.keys.remove(at: i)
        }
        return release(row)
    }

    /// The keys at the front older than `cutoff` with a rev at most `maxRev`
    /// (a void key, rev -1, goes by its age alone) leave; returns the rows
    /// they emptied.
    func prune(board: String, olderThan cutoff: Int, maxRev: Int) -> [Int] {
        guard let q = queues[board] else { return [] }
        var i = q.head
        var emptied: [Int] = []
        while i < q.keys.count, q.keys[i].at < cutoff, q.keys[i].rev <= maxRev {
            if let row = release(q.keys[i].row) { emptied.append(row) }
            i += 1
        }
        if i != q.head { advance(q, to: i) }
        return emptied
    }

    /// Every key of `board`, which is gone; returns the rows emptied.
    func drop(board: String) -> [Int] {
        guard let q = queues.removeValue(forKey: board) else { return [] }
        var emptied: [Int] = []
        for key in q.keys[q.head...] {
            if let row = release(key.row) { emptied.append(row) }
        }
        return emptied
    }

    /// Rows looked at per row offered by `compactable`: a commit's share of
    /// the scan stays bounded however many rows are mostly alive.
    static let scanPerRow = 32

    /// Up to `limit` rows at most half alive, oldest first, while the table
    /// holds more dead keys than live ones and `slack`; none otherwise. Each
    /// call looks at no more than `limit * scanPerRow` rows, going on from
    /// where the last call stopped and round to the oldest again at the end.
    func compactable(limit: Int, slack: Int = KeyQueues.slack) -> [Int] {
        guard storedKeys - count > count + slack else { return [] }
        while orderHead < order.count, rows[order[orderHead]] == nil { orderHead += 1 }
        // Gone rows leave `order` now and then, all at once: those passed at
        // the front, and those behind a long-lived row there. The scan goes on
        // from the same row.
        if (orderHead > 64 && orderHead * 2 > order.count) || order.count - orderHead > 2 * rows.count + 64 {
            var kept: [Int] = []
            kept.reserveCapacity(rows.count)
            var scan = 0
            for i in orderHead..<order.count where rows[order[i]] != nil {
                if i < scanAt { scan += 1 }
                kept.append(order[i])
            }
            order = kept
            orderHead = 0
            scanAt = scan
        }
        var out: [Int] = []
        var budget = min(limit * Self.scanPerRow, order.count - orderHead)
        if scanAt < orderHead || scanAt >= order.count { scanAt = orderHead }
        while budget > 0 && out.count < limit {
            if let p = rows[order[scanAt]], p.live * 2 <= p.written { out.append(order[scanAt]) }
            budget -= 1
            scanAt += 1
            if scanAt == order.count { scanAt = orderHead }
        }
        return out
    }

    /// Where in `board`'s queue its live keys in `row` stand, by hash, each
    /// hash's places in the order written: one pass over the queue.
    func places(board: String, row: Int) -> [UInt64: [Int]] {
        guard let q = queues[board] else { return [:] }
        var out: [UInt64: [Int]] = [:]
        for i in q.keys.indices[q.head...] where q.keys[i].row == row {
            out[q.keys[i].hash, default: []].append(i)
        }
        return out
    }

    /// The live keys of row `old` (their places per board) now stand in row
    /// `new`, written with them; `old` is gone. No `new` when none was live.
    func moved(from old: Int, _ places: [String: [Int]], to new: Int?) {
        if let p = rows.removeValue(forKey: old) {
            count -= p.live
            storedKeys -= p.written
        }
        guard let new else { return }
        var n = 0
        for (board, indices) in places {
            guard let q = queues[board] else { continue }
            for i in indices { q.keys[i].row = new }
            n += indices.count
        }
        guard n > 0 else { return }
        add(new, n)
    }

    private func release(_ row: Int) -> Int? {
        guard var p = rows[row] else { return nil }
        count -= 1
        p.live -= 1
        if p.live > 0 {
            rows[row] = p
            return nil
        }
        rows[row] = nil
        storedKeys -= p.written
        return row
    }

    /// Spent keys are compacted away once they are a quarter of the queue, so
    /// a board at its bound holds at most a third more than it keeps:
    /// amortised O(1) a key.
    private func advance(_ q: Queue, to head: Int) {
        if head > 32 && head * 4 > q.keys.count {
            q.keys.removeFirst(head)
            q.head = 0
        } else {
            q.head = head
        }
    }
}
