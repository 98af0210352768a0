/// The keys of a board's committed keyed actions (`ActionKey`), each with
/// the answer its action got: what the store keeps, mirrored, so a repeat
/// is recognised without a read. Bounded by count: past `cap`, the oldest
/// are forgotten (and the hub tells the store to forget them too).
struct KeptKeys {
    struct Kept: Equatable {
        var rev: Int
        var fingerprint: Int64
    }

    private var table = KeyTable<Kept>()
    /// Insertion order, oldest first from `head`; compacted once half is spent.
    private var order: [HashedKey] = []
    private var head = 0

    var count: Int { table.count }

    func find(_ key: HashedKey) -> Kept? { table.find(key) }
    func find(_ key: String) -> Kept? { find(HashedKey(key)) }

    /// Remembers `key` (a key already kept keeps its first answer); returns
    /// the keys forgotten to stay within `cap`, with their revs.
    mutating func remember(_ key: HashedKey, _ kept: Kept, cap: Int) -> [(key: String, rev: Int)] {
        // One probe on the common path (a new key); a kept one is put back as it was.
        if let first = table.insert(key, kept) {
            table.insert(key, first)
            return []
        }
        order.append(key)
        var forgotten: [(key: String, rev: Int)] = []
        while table.count > max(cap, 1), head < order.count {
            let oldest = order[head]
            head += 1
            if let gone = table.remove(oldest) { forgotten.append((oldest.key, gone.rev)) }
        }
        if head > 64 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return forgotten
    }

    mutating func remember(_ key: String, _ kept: Kept, cap: Int) -> [(key: String, rev: Int)] {
        remember(HashedKey(key), kept, cap: cap)
    }
}
