/// The keys of a board's committed keyed actions (`ActionKey`), each with
/// the answer its action got: what the store keeps, mirrored, so a repeat
/// is recognised without a read. Bounded by count: past `cap`, the oldest
/// are forgotten (and the hub tells the store to forget them too).
struct KeptKeys {
    struct Kept: Equatable {
        var rev: Int
        var fingerprint: Int64
    }

    /// A key with its 64-bit hash beside it. At the bound a board holds
    /// 10,000 keys, most long out of cache: a probe compares the hashes it
    /// holds inline and reads a key's own bytes only when they match, where
    /// a `String` key would be read (a cache miss) at every probe.
    struct Hashed: Hashable {
        let hash: UInt64
        let key: String

        init(_ key: String) {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in key.utf8 {
                h ^= UInt64(byte)
                h = h &* 0x0000_0100_0000_01b3
            }
            hash = h
            self.key = key
        }

        static func == (a: Hashed, b: Hashed) -> Bool { a.hash == b.hash && a.key == b.key }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private var byKey: [Hashed: Kept] = [:]
    /// Insertion order, oldest first from `head`; compacted once half is spent.
    private var order: [Hashed] = []
    private var head = 0

    var count: Int { byKey.count }

    func find(_ key: String) -> Kept? { byKey[Hashed(key)] }

    /// Remembers `key` (a key already kept keeps its first answer); returns
    /// the keys forgotten to stay within `cap`, with their revs.
    mutating func remember(_ key: String, _ kept: Kept, cap: Int) -> [(key: String, rev: Int)] {
        let hashed = Hashed(key)
        guard byKey[hashed] == nil else { return [] }
        byKey[hashed] = kept
        order.append(hashed)
        var forgotten: [(key: String, rev: Int)] = []
        while byKey.count > max(cap, 1), head < order.count {
            let oldest = order[head]
            head += 1
            if let gone = byKey.removeValue(forKey: oldest) { forgotten.append((oldest.key, gone.rev)) }
        }
        if head > 64 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return forgotten
    }
}
