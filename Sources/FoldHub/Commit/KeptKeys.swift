import FoldCore

/// The keys of a board's committed keyed actions (`ActionKey`), each with
/// the answer its action got: what the store keeps, mirrored, so a repeat
/// is recognised without a read. Bounded by count: past `cap`, the oldest
/// are forgotten (and the hub tells the store to forget them too).
///
/// Laid out for a board of 10,000 keys among many such boards: the keys
/// and their answers stand in `kept`, in the order kept (appended, read in
/// order when the oldest goes, and otherwise only when a probe's tag
/// matches); the table is 8-byte slots, each a tag of the key's hash and
/// the key's place in `kept`, at most half full. A look-up or an insert
/// reads one run of slots and, for a key that is there, its entry;
/// forgetting the oldest finds its slot by tag and place alone. What it
/// costs: 96 bytes a key in `kept` and 16 to 32 in the table, about 1.2 MB
/// a board at 10,000 keys, 256 KB of it the table a probe reads.
struct KeptKeys {
    struct Kept: Equatable {
        var rev: Int
        var fingerprint: Int64
    }

    private struct Entry {
        let key: PackedKey
        let kept: Kept
    }

    /// 0: empty; else the tag (high 32 bits, the top one set) and the
    /// entry's place as a 32-bit sequence number (low 32 bits). A key's
    /// home slot is its tag's low bits, so the table moves and grows
    /// without reading a key.
    private var slots: [UInt64] = []
    /// The kept keys oldest first from `head`: `kept[i]` has the sequence
    /// number `base &+ i`. Compacted once half is spent.
    private var kept: [Entry] = []
    private var base: UInt32 = 0
    private var head = 0

    var count: Int { kept.count - head }

    private static func tag(_ hash: UInt64) -> UInt64 { (hash >> 32) | (1 << 31) }

    private static func slot(_ tag: UInt64, _ seq: UInt32) -> UInt64 { tag << 32 | UInt64(seq) }

    private func place(_ slot: UInt64) -> Int { Int(UInt32(truncatingIfNeeded: slot) &- base) }

    func find(_ key: PackedKey) -> Kept? {
        guard count > 0 else { return nil }
        let tag = Self.tag(key.hash), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: tag) & mask
        while slots[i] != 0 {
            if slots[i] >> 32 == tag, kept[place(slots[i])].key == key { return kept[place(slots[i])].kept }
            i = (i + 1) & mask
        }
        return nil
    }

    func find(_ key: String) -> Kept? { find(PackedKey(key)) }

    /// Remembers `key` (a key already kept keeps its first answer); hands
    /// `forgetting` each key forgotten to stay within `cap`, oldest first,
    /// with its rev.
    mutating func remember(_ key: PackedKey, _ answer: Kept, cap: Int, forgetting: (PackedKey, Int) -> Void) {
        if (count + 1) * 2 > slots.count { grow() }
        let tag = Self.tag(key.hash), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: tag) & mask
        while slots[i] != 0 {
            if slots[i] >> 32 == tag, kept[place(slots[i])].key == key { return }
            i = (i + 1) & mask
        }
        slots[i] = Self.slot(tag, base &+ UInt32(kept.count))
        kept.append(Entry(key: key, kept: answer))
        guard count > max(cap, 1) else { return }
        while count > max(cap, 1) {
            let oldest = kept[head]
            remove(Self.slot(Self.tag(oldest.key.hash), base &+ UInt32(head)))
            forgetting(oldest.key, oldest.kept.rev)
            head += 1
        }
        if head > 64 && head * 2 > kept.count {
            kept.removeFirst(head)
            base &+= UInt32(head)
            head = 0
        }
    }

    /// The keys forgotten, as a list.
    mutating func remember(_ key: String, _ answer: Kept, cap: Int) -> [(key: PackedKey, rev: Int)] {
        var forgotten: [(key: PackedKey, rev: Int)] = []
        remember(PackedKey(key), answer, cap: cap) { forgotten.append(($0, $1)) }
        return forgotten
    }

    /// Empties the slot holding exactly `slot`, then moves back each later
    /// slot of the run whose home is not between the hole and it, so every
    /// key stays reachable (no tombstones: a table used for long never slows).
    private mutating func remove(_ slot: UInt64) {
        let mask = slots.count - 1
        var hole = Int(truncatingIfNeeded: slot >> 32) & mask
        while slots[hole] != slot {
            precondition(slots[hole] != 0, "a kept key is missing from its table")
            hole = (hole + 1) & mask
        }
        var i = (hole + 1) & mask
        while slots[i] != 0 {
            let home = Int(truncatingIfNeeded: slots[i] >> 32) & mask
            // Movable when its home is not within (hole, i], cyclically.
            let stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i)
            if !stays {
                slots[hole] = slots[i]
                hole = i
            }
            i = (i + 1) & mask
        }
        slots[hole] = 0
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: Swift.max(16, old.count * 2))
        let mask = slots.count - 1
        for s in old where s != 0 {
            var i = Int(truncatingIfNeeded: s >> 32) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = s
        }
    }
}
