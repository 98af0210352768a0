/// Where each kept key's row is, per board, in the order written: the keys
/// table is a plain rowid table (a commit's keys land together at its end,
/// a page or two, not a page per board), so every delete goes by rowid,
/// found here: the oldest first when the hub forgets them past its count
/// bound, and from the front while past both the age and the history bound
/// (a key's time and rev grow with its place). Built from the table at the
/// first read or commit.
struct KeyQueues {
    struct Row: Equatable {
        let rowid: Int
        let key: String
        let rev: Int
        let at: Int
    }

    private var queues: [String: [Row]] = [:]
    /// The first live row of each board's queue (rows before it are gone).
    private var heads: [String: Int] = [:]

    var count: Int { queues.reduce(0) { $0 + $1.value.count - (heads[$1.key] ?? 0) } }

    mutating func wrote(board: String, _ row: Row) {
        queues[board, default: []].append(row)
    }

    /// The row of `key`, which the hub forgot: its oldest, so at the front.
    mutating func forget(board: String, key: String) -> Int? {
        guard let queue = queues[board] else { return nil }
        let head = heads[board] ?? 0
        guard let i = queue[head...].firstIndex(where: { $0.key == key }) else { return nil }
        let rowid = queue[i].rowid
        if i == head {
            advance(board, to: head + 1)
        } else {
            queues[board]!.remove(at: i)
        }
        return rowid
    }

    /// The rows at the front older than `cutoff` with a rev at most `maxRev`
    /// (a void key, rev -1, goes by its age alone), taken off the queue.
    mutating func prune(board: String, olderThan cutoff: Int, maxRev: Int) -> [Int] {
        guard let queue = queues[board] else { return [] }
        var i = heads[board] ?? 0
        var gone: [Int] = []
        while i < queue.count, queue[i].at < cutoff, queue[i].rev <= maxRev {
            gone.append(queue[i].rowid)
            i += 1
        }
        if !gone.isEmpty { advance(board, to: i) }
        return gone
    }

    mutating func drop(board: String) {
        queues[board] = nil
        heads[board] = nil
    }

    mutating func removeAll() {
        queues = [:]
        heads = [:]
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
