/// A hash table of action keys, open addressing with linear probing: the
/// hub's keys of a board (`KeptKeys`) and of the commits in flight
/// (`CommitPipeline`). Why not `Dictionary`: every action probes it two to
/// four times, and `Dictionary` runs SipHash over a hash already made and
/// reads each probed key's bytes, out of cache at 10,000 keys a board. Here
/// a probe reads 8 bytes of hashes in a row and a key only when its hash
/// matches.
///
/// One key may stand more than once, told apart by `matching` (the same
/// key on two boards, in the pipeline); at most half full; a removal moves
/// the probe run back (no tombstones), so a table that is used for long
/// never slows down.
struct KeyTable<Value> {
    /// 0: empty; else the key's hash with the top bit set (so never 0).
    private var tags: [UInt64]
    private var keys: [String?]
    private var values: [Value?]
    private(set) var count = 0

    init() {
        tags = []
        keys = []
        values = []
    }

    private static func tag(_ hash: UInt64) -> UInt64 { hash | (1 << 63) }

    /// The value under `key` that `matching` accepts.
    func find(_ key: HashedKey, matching: (Value) -> Bool = { _ in true }) -> Value? {
        guard count > 0 else { return nil }
        let tag = Self.tag(key.hash), mask = tags.count - 1
        var i = Int(truncatingIfNeeded: key.hash) & mask
        while tags[i] != 0 {
            if tags[i] == tag, keys[i] == key.key, let v = values[i], matching(v) { return v }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Puts `value` under `key`, in place of a value `matching` accepts if
    /// there is one; returns that value.
    @discardableResult
    mutating func insert(_ key: HashedKey, _ value: Value, replacing matching: (Value) -> Bool = { _ in true }) -> Value? {
        if (count + 1) * 2 > tags.count { grow() }
        let tag = Self.tag(key.hash), mask = tags.count - 1
        var i = Int(truncatingIfNeeded: key.hash) & mask
        while tags[i] != 0 {
            if tags[i] == tag, keys[i] == key.key, let old = values[i], matching(old) {
                values[i] = value
                return old
            }
            i = (i + 1) & mask
        }
        tags[i] = tag
        keys[i] = key.key
        values[i] = value
        count += 1
        return nil
    }

    /// Removes the value under `key` that `matching` accepts; returns it.
    @discardableResult
    mutating func remove(_ key: HashedKey, matching: (Value) -> Bool = { _ in true }) -> Value? {
        guard count > 0 else { return nil }
        let tag = Self.tag(key.hash), mask = tags.count - 1
        var i = Int(truncatingIfNeeded: key.hash) & mask
        while tags[i] != 0 {
            if tags[i] == tag, keys[i] == key.key, let v = values[i], matching(v) {
                close(i)
                count -= 1
                return v
            }
            i = (i + 1) & mask
        }
        return nil
    }

    mutating func removeAll() {
        self = KeyTable()
    }

    /// Empties slot `hole` and moves back each later slot of the run whose
    /// home is not between the hole and it, so every key stays reachable.
    private mutating func close(_ hole: Int) {
        let mask = tags.count - 1
        var hole = hole, i = (hole + 1) & mask
        while tags[i] != 0 {
            let home = Int(truncatingIfNeeded: tags[i]) & mask
            // Movable when its home is not within (hole, i], cyclically.
            let stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i)
            if !stays {
                tags[hole] = tags[i]
                keys[hole] = keys[i]
                values[hole] = values[i]
                hole = i
            }
            i = (i + 1) & mask
        }
        tags[hole] = 0
        keys[hole] = nil
        values[hole] = nil
    }

    /// Doubles the table; each key and value is moved (`take`), not copied
    /// and released, so a growing table costs no reference counting.
    private mutating func grow() {
        let size = Swift.max(16, tags.count * 2)
        let oldTags = tags
        var oldKeys = keys, oldValues = values
        tags = Array(repeating: 0, count: size)
        keys = Array(repeating: nil, count: size)
        values = Array(repeating: nil, count: size)
        let mask = size - 1
        for j in oldTags.indices where oldTags[j] != 0 {
            var i = Int(truncatingIfNeeded: oldTags[j]) & mask
            while tags[i] != 0 { i = (i + 1) & mask }
            tags[i] = oldTags[j]
            keys[i] = oldKeys[j].take()
            values[i] = oldValues[j].take()
        }
    }
}
