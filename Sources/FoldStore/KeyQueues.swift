import FoldCore

/// Where each kept key is, per board, in the order written: which row of
/// `key_packs` holds it (`KeyPack`: a board's keys of one commit), and how
/// many kept keys each pack still holds. A pack is deleted, by rowid, when
/// its last key goes: the oldest first when the hub forgets them past its
/// count bound, and from the front while past both the age and the history
/// bound (a key's time and rev grow with its place). Built from the table
/// at the first read or commit.
struct KeyQueues {
    struct Row: Equatable {
        /// The rowid of the pack that holds the key.
        let pack: Int
        /// The key's `PackedKey.hash`: the hub forgets a board's keys oldest
        /// first, so the first row with the hash is the one.
        let hash: UInt64
        let rev: Int
        let at: Int
    }

    private var queues: [String: [Row]] = [:]
    /// The first live row of each board's queue (rows before it are gone).
    private var heads: [String: Int] = [:]
    /// Kept keys per pack; a pack leaves when its count reaches 0.
    private var live: [Int: Int] = [:]

    var count: Int { queues.reduce(0) { $0 + $1.value.count - (heads[$1.key] ?? 0) } }
    var packs: Int { live.count }

    /// The keys of pack `pack`, all of `board`, oldest first.
    mutating func wrote(board: String, _ rows: [Row]) {
        guard let pack = rows.first?.pack else { return }
        queues[board, default: []].append(contentsOf: rows)
        live[pack, default: 0] += rows.count
    }

    /// `key`, which the hub forgot (its oldest, so at the front), leaves;
    /// returns its pack's rowid when that was the pack's last key.
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
    /// (a void key, rev -1, goes by its age alone) leave; returns the packs
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

    /// Every pack of `board`, which is gone; returns them to delete.
    mutating func drop(board: String) -> [Int] {
        var packs: [Int] = []
        for row in queues[board]?[(heads[board] ?? 0)...] ?? [] {
            if live.removeValue(forKey: row.pack) != nil { packs.append(row.pack) }
        }
        queues[board] = nil
        heads[board] = nil
        return packs
    }

    private mutating func release(_ pack: Int) -> Int? {
        guard let n = live[pack] else { return nil }
        if n > 1 {
            live[pack] = n - 1
            return nil
        }
        live[pack] = nil
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
