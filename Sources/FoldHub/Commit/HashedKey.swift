/// An action's key (and, where it matters, its board) with a 64-bit hash
/// beside it, as the key of the hub's dictionaries of keys. At the bound a
/// board holds 10,000 keys, most long out of cache: a probe compares the
/// hashes held inline and reads a key's own bytes only when they match,
/// where a `String` key would be read (a cache miss) at every probe.
struct HashedKey: Hashable {
    let hash: UInt64
    let key: String
    let board: String

    init(_ key: String, board: String = "") {
        // FNV-1a over the key, a separator no key holds, then the board.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        h = (h ^ 0xff) &* 0x0000_0100_0000_01b3
        for byte in board.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        hash = h
        self.key = key
        self.board = board
    }

    static func == (a: HashedKey, b: HashedKey) -> Bool { a.hash == b.hash && a.key == b.key && a.board == b.board }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
