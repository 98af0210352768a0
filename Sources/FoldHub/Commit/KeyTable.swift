/// A hash table filed by action keys' hashes (`PackedKey.hash`), open
/// addressing with linear probing, whose values tell keys apart: the caller
/// says which value it means (`matching`), so a probe reads no key at all,
/// only 8 bytes of hash and the value beside it: one cache line, however
/// big the table. Holds the keyed entries of the commits in flight
/// (`CommitPipeline`); a board's kept keys, many more and long-lived, have
/// a table of 8-byte slots of their own (`KeptKeys`). Why not `Dictionary`:
/// it runs SipHash over a hash already made, and a probe reads each key it
/// passes.
///
/// At most half full; a removal moves the probe run back (no tombstones),
/// so a table that is used for long never slows down.
struct KeyTable<Value> {
    private struct Slot {
        /// 0: empty; else the key's hash with the top bit set.
        var tag: UInt64
        var value: Value?
    }

    private var slots: [Slot] = []
    private(set) var count = 0

    private static func tag(_ hash: UInt64) -> UInt64 { hash | (1 << 63) }

    /// The value under `hash` that `matching` accepts.
    func find(_ hash: UInt64, where matching: (Value) -> Bool) -> Value? {
        guard count > 0 else { return nil }
        let tag = Self.tag(hash), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i].tag != 0 {
            if slots[i].tag == tag, let v = slots[i].value, matching(v) { return v }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Puts `value` under `hash`, unless a value `present` accepts is
    /// there: then that one stays, and is returned.
    @discardableResult
    mutating func insert(_ hash: UInt64, _ value: Value, unless present: (Value) -> Bool) -> Value? {
        if (count + 1) * 2 > slots.count { grow() }
        let tag = Self.tag(hash), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i].tag != 0 {
            if slots[i].tag == tag, let v = slots[i].value, present(v) { return v }
            i = (i + 1) & mask
        }
        slots[i] = Slot(tag: tag, value: value)
        count += 1
        return nil
    }

    /// Removes the value under `hash` that `matching` accepts; returns it.
    @discardableResult
    mutating func remove(_ hash: UInt64, where matching: (Value) -> Bool) -> Value? {
        guard count > 0 else { return nil }
        let tag = Self.tag(hash), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i].tag != 0 {
            if slots[i].tag == tag, let v = slots[i].value, matching(v) {
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
        let mask = slots.count - 1
        var hole = hole, i = (hole + 1) & mask
        while slots[i].tag != 0 {
            let home = Int(truncatingIfNeeded: slots[i].tag) & mask
            // Movable when its home is not within (hole, i], cyclically.
            let stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i)
            if !stays {
                slots.swapAt(hole, i)
                hole = i
            }
            i = (i + 1) & mask
        }
        slots[hole] = Slot(tag: 0, value: nil)
    }

    /// Doubles the table; each value is moved, not copied and released, so
    /// a growing table costs no reference counting.
    private mutating func grow() {
        var old = slots
        slots = Array(repeating: Slot(tag: 0, value: nil), count: Swift.max(16, old.count * 2))
        let mask = slots.count - 1
        for j in old.indices where old[j].tag != 0 {
            var i = Int(truncatingIfNeeded: old[j].tag) & mask
            while slots[i].tag != 0 { i = (i + 1) & mask }
            slots[i] = Slot(tag: old[j].tag, value: old[j].value.take())
        }
    }
}
