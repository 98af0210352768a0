import FoldCore

/// The keys of a board's committed keyed actions (`ActionKey`), each with
/// the answer its action got: what the store keeps, mirrored, so a repeat
/// is recognised without a read. Bounded by count: past `cap`, the oldest
/// are forgotten (and the hub tells the store to forget them too).
///
/// Laid out for a board of 10,000 keys out of cache: the keys themselves
/// stand in `keys`, in the order kept (appended; read again only when a
/// probe's hash matches, and when the oldest goes); the table holds each
/// key's answer and place, so a look-up or an insert touches one slot, and
/// forgetting the oldest finds its slot by hash and place, without
/// comparing keys. What it costs: 80 bytes a key in `keys` and 80 to 160
/// in the table (40-byte slots, at most half full): about 2 MB a board at
/// 10,000 keys.
struct KeptKeys {
    struct Kept: Equatable {
        var rev: Int
        var fingerprint: Int64
    }

    private struct Slot {
        /// The key's place in `keys` (`base` and up).
        var seq: Int
        var kept: Kept
    }

    private var table = KeyTable<Slot>()
    /// The kept keys oldest first from `head`: `keys[i]` is the key of
    /// place `base + i`. Compacted once half is spent.
    private var keys: [PackedKey] = []
    private var base = 0
    private var head = 0

    var count: Int { table.count }

    func find(_ key: PackedKey) -> Kept? {
        table.find(key.hash) { keys[$0.seq - base] == key }?.kept
    }

    func find(_ key: String) -> Kept? { find(PackedKey(key)) }

    /// Remembers `key` (a key already kept keeps its first answer); returns
    /// the keys forgotten to stay within `cap`, with their revs.
    mutating func remember(_ key: PackedKey, _ kept: Kept, cap: Int) -> [(key: PackedKey, rev: Int)] {
        // The look-up brings the probe run into cache for the insert after it.
        guard find(key) == nil else { return [] }
        table.insert(key.hash, Slot(seq: base + keys.count, kept: kept), unless: { _ in false })
        keys.append(key)
        guard table.count > max(cap, 1) else { return [] }
        var forgotten: [(key: PackedKey, rev: Int)] = []
        while table.count > max(cap, 1), head < keys.count {
            let oldest = keys[head], seq = base + head
            if let gone = table.remove(oldest.hash, where: { $0.seq == seq }) { forgotten.append((oldest, gone.kept.rev)) }
            head += 1
        }
        if head > 64 && head * 2 > keys.count {
            keys.removeFirst(head)
            base += head
            head = 0
        }
        return forgotten
    }

    mutating func remember(_ key: String, _ kept: Kept, cap: Int) -> [(key: PackedKey, rev: Int)] {
        remember(PackedKey(key), kept, cap: cap)
    }
}
