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

/// Board names to group numbers for one commit: open addressing on an
/// FNV-1a hash of the name's bytes (names are short; a `Dictionary` of
/// `String` hashed each key's board with SipHash, most of what filing cost).
struct NameTable {
    /// 0: empty; else the hash's high 32 bits (the top one set) and the group.
    private var slots: [UInt64] = []

    /// Empty, with room for `n` names at most half full.
    mutating func clear(forUpTo n: Int) {
        var size = 16
        while size < 2 * n { size *= 2 }
        if slots.count != size { slots = Array(repeating: 0, count: size) } else {
            for i in slots.indices { slots[i] = 0 }
        }
    }

    /// The group of `name` among `names` (each group's name); `new` for a
    /// name not filed yet, which it is then filed as.
    mutating func group(of name: String, in names: [String], orNew new: Int) -> Int {
        var text = name
        let hash: UInt64 = text.withUTF8 { bytes in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
            return h
        }
        let tag = (hash >> 32) | (1 << 31), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i] != 0 {
            if slots[i] >> 32 == tag {
                let g = Int(UInt32(truncatingIfNeeded: slots[i]))
                if names[g] == name { return g }
            }
            i = (i + 1) & mask
        }
        slots[i] = tag << 32 | UInt64(new)
        return new
    }
}
