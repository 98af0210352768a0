import FoldCore

/// A commit's keys filed by board, the boards in the order of their first
/// key, each board's keys in their order (a stable counting sort): a row of
/// `key_commits` holds a group per board. A value the store keeps between
/// commits and takes out while it files, so filing allocates nothing once
/// the buffers have grown and no access to them is checked key by key.
struct KeyGrouping {
    /// The keys' indices, board by board: board `g`'s from `start[g]` to `start[g + 1]`.
    private(set) var order: [Int] = []
    private var start: [Int] = []
    /// Each group's board, and where a board's group is found by its name.
    private var names: [String] = []
    private var table = NameTable()
    private var groupOfKey: [Int] = []

    /// Files `keys`; returns how many boards they name.
    mutating func file(_ keys: UnsafeBufferPointer<StoredKey>) -> Int {
        groupOfKey.removeAll(keepingCapacity: true)
        start.removeAll(keepingCapacity: true)
        names.removeAll(keepingCapacity: true)
        table.clear(forUpTo: keys.count)
        var last = "", lastGroup = -1
        for i in keys.indices {
            // Keys come in runs of a board often enough to look the board up only when it changes.
            if lastGroup < 0 || keys[i].board != last {
                last = keys[i].board
                lastGroup = table.group(of: last, in: names, orNew: start.count)
                if lastGroup == start.count {
                    names.append(last)
                    start.append(0)
                }
            }
            groupOfKey.append(lastGroup)
            start[lastGroup] += 1
        }
        // Counts to starts; each key to its place, a board's start moving on
        // to its end (the next board's start); then the first start, 0.
        var at = 0
        for g in start.indices {
            let n = start[g]
            start[g] = at
            at += n
        }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: repeatElement(0, count: keys.count))
        for (i, g) in groupOfKey.enumerated() {
            order[start[g]] = i
            start[g] += 1
        }
        start.insert(0, at: 0)
        return start.count - 1
    }

    /// The indices of board `g`'s keys, in their order.
    func run(_ g: Int) -> ArraySlice<Int> { order[start[g]..<start[g + 1]] }
}
