import FoldCore

/// Board names to group numbers for one commit: open addressing on an
/// FNV-1a hash of the name's bytes (names are short; a `Dictionary` of
/// `String` hashed each key's board with SipHash, most of what filing cost).
struct NameTable {
    /// 0: empty; else the hash's high 32 bits (the top one set) and the group.
    private var slots: [UInt64] = []
    /// The slots filed since the last `clear`: a commit names a few boards
    /// in a table sized for its keys, so only those are emptied.
    private var used: [Int] = []

    /// Empty, with room for `n` names at most half full.
    mutating func clear(forUpTo n: Int) {
        var size = 16
        while size < 2 * n { size *= 2 }
        if slots.count != size { slots = Array(repeating: 0, count: size) } else {
            for i in used { slots[i] = 0 }
        }
        used.removeAll(keepingCapacity: true)
    }

    /// The group of `name` among `names` (each group's name); `new` for a
    /// name not filed yet, which it is then filed as.
    mutating func group(of name: String, in names: [String], orNew new: Int) -> Int {
        var text = name
        var fnv = FNV1a()
        text.withUTF8 { fnv.add(UnsafeRawBufferPointer($0)) }
        let hash = fnv.value
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
        used.append(i)
        return new
    }
}
