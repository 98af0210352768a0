import FoldCore

/// The keys of a board's committed keyed actions (`ActionKey`), each with
/// the answer its action got: what the store keeps, mirrored, so a repeat
/// is recognised without a read. Bounded by count: past `cap`, the oldest
/// are forgotten (and the hub tells the store to forget them too).
///
/// Laid out for a board of 10,000 keys among many such boards: the keys
/// and their answers stand in `ring`, oldest first from `oldest` (read in
/// order when the oldest goes, and otherwise only when a probe's tag
/// matches); the table is 8-byte slots, each a tag of the key's hash and
/// the key's sequence number, at most half full. A look-up or an insert
/// reads one run of slots and, for a key that is there, its entry;
/// forgetting the oldest finds its slot by tag and number alone. The ring
/// grows to `cap` entries and no further: a new key past it takes the
/// oldest's place, so nothing is copied once a board is at its bound. What
/// it costs: 96 bytes a key in the ring and 16 to 32 in the table, about
/// 1.2 MB a board at 10,000 keys.
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
    /// entry's sequence number (low 32 bits). A key's home slot is its
    /// tag's low bits, so the table moves and grows without reading a key.
    private var slots: [UInt64] = []
    /// The kept keys, `count` of them from `oldest` round the end: the
    /// oldest has the sequence number `base`, the next `base &+ 1`.
    private var ring: [Entry] = []
    private var oldest = 0
    private var base: UInt32 = 0
    private(set) var count = 0

    private static func tag(_ hash: UInt64) -> UInt64 { (hash >> 32) | (1 << 31) }

    private static func slot(_ tag: UInt64, _ seq: UInt32) -> UInt64 { tag << 32 | UInt64(seq) }

    /// Where in `ring` the entry of `slot` stands.
    private func index(_ slot: UInt64) -> Int {
        let i = oldest + Int(UInt32(truncatingIfNeeded: slot) &- base)
        return i < ring.count ? i : i - ring.count
    }

    func find(_ key: PackedKey) -> Kept? {
        guard count > 0 else { return nil }
        let tag = Self.tag(key.hash), mask = slots.count - 1
        var i = Int(truncatingIfNeeded: tag) & mask
        while slots[i] != 0 {
            if slots[i] >> 32 == tag, ring[index(slots[i])].key == key { return ring[index(slots[i])].kept }
            i = (i + 1) & mask
        }
        return nil
    }

    func find(_ key: String) -> Kept? { find(PackedKey(key)) }

    /// Remembers `key` (a key already kept keeps its first answer); hands
    /// `forgetting` each key forgotten to stay within `cap`, oldest first,
    /// with its rev.
    mutating func remember(_ key: PackedKey, _ answer: Kept, cap: Int, forgetting: (PackedKey, Int) -> Void) {
        // One probe finds the key or the empty slot that ends its run: below
        // the bound and the table's load, that slot takes it.
        let tag = Self.tag(key.hash)
        var empty: Int?
        if !slots.isEmpty {
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: tag) & mask
            while slots[i] != 0 {
                if slots[i] >> 32 == tag, ring[index(slots[i])].key == key { return }
                i = (i + 1) & mask
            }
            empty = i
        }
        let cap = max(cap, 1)
        // Forgetting moves slots back, and growing lays them out again: the slot is looked for again then.
        if count >= cap { empty = nil }
        while count >= cap {
            let gone = ring[oldest]
            remove(Self.slot(Self.tag(gone.key.hash), base))
            forgetting(gone.key, gone.kept.rev)
            oldest = oldest + 1 == ring.count ? 0 : oldest + 1
            base &+= 1
            count -= 1
        }
        let entry = Entry(key: key, kept: answer)
        // A bound lowered: the ring shrinks to it.
        if ring.count > 2 * cap { relay(capacity: cap) }
        if count < ring.count {
            let i = oldest + count
            ring[i < ring.count ? i : i - ring.count] = entry
        } else {
            // Full below the bound: grows in place while never wrapped, else laid out again in order.
            if oldest != 0 { relay(capacity: cap) }
            if ring.count == ring.capacity { ring.reserveCapacity(Swift.min(cap, Swift.max(16, ring.count * 2))) }
            ring.append(entry)
        }
        if (count + 1) * 2 > slots.count {
            grow()
            empty = nil
        }
        var i: Int
        if let empty {
            i = empty
        } else {
            let mask = slots.count - 1
            i = Int(truncatingIfNeeded: tag) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
        }
        slots[i] = Self.slot(tag, base &+ UInt32(count))
        count += 1
    }

    /// Keys read from the store, oldest first (past `cap`, the oldest are not kept).
    mutating func remember(_ stored: [StoredKey], cap: Int) {
        for k in stored.suffix(cap) { remember(k.packed, .init(rev: k.rev, fingerprint: k.fingerprint), cap: cap) { _, _ in } }
    }

    /// The keys forgotten, as a list.
    mutating func remember(_ key: String, _ answer: Kept, cap: Int) -> [(key: PackedKey, rev: Int)] {
        var forgotten: [(key: PackedKey, rev: Int)] = []
        remember(PackedKey(key), answer, cap: cap) { forgotten.append(($0, $1)) }
        return forgotten
    }

    /// The ring laid out oldest first from 0, with room for `capacity`.
    private mutating func relay(capacity: Int) {
        var next: [Entry] = []
        next.reserveCapacity(Swift.max(capacity, count))
        for k in 0..<count {
            let i = oldest + k
            next.append(ring[i < ring.count ? i : i - ring.count])
        }
        ring = next
        oldest = 0
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
