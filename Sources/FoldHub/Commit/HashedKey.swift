/// An action's key with a 64-bit hash beside it, computed once per action
/// and carried from the first look-up to the last (`KeyTable`'s probes
/// compare the hashes and read a key's bytes only when they match).
struct HashedKey: Equatable {
    let hash: UInt64
    let key: String

    init(_ key: String) {
        // FNV-1a over the key's bytes, read in place (a key is at most 64 bytes).
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var text = key
        text.withUTF8 { bytes in
            for byte in bytes { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        hash = h
        self.key = text
    }

    static func == (a: HashedKey, b: HashedKey) -> Bool { a.hash == b.hash && a.key == b.key }
}
