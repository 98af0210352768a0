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
struct KeyQueues {
    struct Row: Equatable {
        /// The rowid of the row that holds the key.
        var pack: Int
        /// The key's `PackedKey.hash`: the hub forgets a board's keys oldest
        /// first, so the first row with the hash is the one.
        let hash: UInt64
        let rev: Int
        let at: Int
    }

    private struct Pack {
        var live: Int
        var written: Int
    }

    /// Dead keys tolerated beyond as many as are live before rows are rewritten.
    static let slack = 4096

    private var queues: [String: [Row]] = [:]
    /// The first live row of each board's queue (rows before it are gone).
    private var heads: [String: Int] = [:]
    /// Kept and written keys per row; a row leaves when none is kept.
    private var rows: [Int: Pack] = [:]
    /// Rowids in the order written (some gone), from `orderHead`.
    private var order: [Int] = []
    private var orderHead = 0
    private(set) var liveKeys = 0
    /// The keys the rows were written with, dead or alive.
    private(set) var storedKeys = 0

    var count: Int { liveKeys }
    var packs: Int { rows.count }

    /// Rows of keys of `board` (in the order written), each in its `pack`.
    mutating func wrote(board: String, _ keys: [Row]) {
        guard !keys.isEmpty else { return }
        queues[board, default: []].append(contentsOf: keys)
        var i = 0
        while i < keys.count {
            var j = i + 1
            while j < keys.count && keys[j].pack == keys[i].pack { j += 1 }
            add(keys[i].pack, j - i)
            i = j
        }
    }

    private mutating func add(_ pack: Int, _ n: Int) {
        if rows[pack] == nil {
            rows[pack] = Pack(live: 0, written: 0)
            order.append(pack)
        }
        rows[pack]!.live += n
        rows[pack]!.written += n
        liveKeys += n
        storedKeys += n
    }

    /// `key`, which the hub forgot (its oldest, so at the front), leaves;
    /// returns its row's rowid when that was the row's last key.
    mutating func forget(board: String, key: PackedKey) -> Int? {
        guard let queue = queues[board] else { return nil }
        let head = heads[board] ?? 0
        guard let i = queue[head...].firstIndex(where: { $0.hash == key.hash }) else { return nil }
        let pack = queue[i].pack
        if i == head {
            advance(board, to: head + 1)
        } else {
            queues[board]!.remove(at: i)
        }
        return release(pack)
    }

    /// The rows at the front older than `cutoff` with a rev at most `maxRev`
    /// (a void key, rev -1, goes by its age alone) leave; returns the rows
    /// they emptied.
    mutating func prune(board: String, olderThan cutoff: Int, maxRev: Int) -> [Int] {
        guard let queue = queues[board] else { return [] }
        var i = heads[board] ?? 0
        var emptied: [Int] = []
        while i < queue.count, queue[i].at < cutoff, queue[i].rev <= maxRev {
            if let pack = release(queue[i].pack) { emptied.append(pack) }
            i += 1
        }
        if i != heads[board] ?? 0 { advance(board, to: i) }
        return emptied
    }

    /// Every key of `board`, which is gone; returns the rows emptied.
    mutating func drop(board: String) -> [Int] {
        var emptied: [Int] = []
        for row in queues[board]?[(heads[board] ?? 0)...] ?? [] {
            if let pack = release(row.pack) { emptied.append(pack) }
        }
        queues[board] = nil
        heads[board] = nil
        return emptied
    }

    /// The oldest rows at most half alive, at most `limit` of them, while the
    /// table holds more dead keys than live ones and `slack`; none otherwise.
    mutating func compactable(limit: Int, slack: Int = Self.slack) -> [Int] {
        guard storedKeys - liveKeys > liveKeys + slack else { return [] }
        while orderHead < order.count, rows[order[orderHead]] == nil { orderHead += 1 }
        if orderHead > 64 && orderHead * 2 > order.count {
            order.removeFirst(orderHead)
            orderHead = 0
        }
        // Gone rows behind a long-lived one at the front are filtered out now and then.
        if order.count - orderHead > 2 * rows.count + 64 {
            order = order[orderHead...].filter { rows[$0] != nil }
            orderHead = 0
        }
        var out: [Int] = []
        for pack in order[orderHead...] {
            guard out.count < limit else { break }
            if let p = rows[pack], p.live * 2 <= p.written { out.append(pack) }
        }
        return out
    }

    /// The place in `board`'s queue of its live key with `hash` in row
    /// `pack`, other than those in `taken`.
    func place(board: String, pack: Int, hash: UInt64, besides taken: Set<Int>) -> Int? {
        guard let queue = queues[board] else { return nil }
        return queue[(heads[board] ?? 0)...].indices.first { queue[$0].pack == pack && queue[$0].hash == hash && !taken.contains($0) }
    }

    /// The live keys of row `old` (their places per board) now stand in row
    /// `new`, written with them; `old` is gone.
    mutating func moved(from old: Int, _ places: [String: [Int]], to new: Int) {
        if let p = rows.removeValue(forKey: old) {
            liveKeys -= p.live
            storedKeys -= p.written
        }
        var n = 0
        for (board, indices) in places {
            for i in indices { queues[board]![i].pack = new }
            n += indices.count
        }
        guard n > 0 else { return }
        add(new, n)
    }

    private mutating func release(_ pack: Int) -> Int? {
        guard var p = rows[pack] else { return nil }
        liveKeys -= 1
        p.live -= 1
        if p.live > 0 {
            rows[pack] = p
            return nil
        }
        rows[pack] = nil
        storedKeys -= p.written
        return pack
    }

    /// Spent rows are compacted away once they are half the queue: amortised O(1) a row.
    private mutating func advance(_ board: String, to head: Int) {
        if head > 32 && head * 2 > queues[board]!.count {
            queues[board]!.removeFirst(head)
            heads[board] = 0
        } else {
            heads[board] = head
        }
    }
}
