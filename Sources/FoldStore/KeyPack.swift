import FoldCore

/// A board's keys of one commit, packed into one row of `key_packs`: one
/// row a board a commit instead of a row a key (SQLite's per-row work and
/// each row's board name were most of what a keyed action cost the
/// committer). Each key: its length (1 byte), its bytes, `rev + 1` as a
/// LEB128 varint (a void key's rev is -1), the fingerprint (8 bytes, little-endian).
enum KeyPack {
    struct Entry: Equatable {
        var key: PackedKey
        var rev: Int
        var fingerprint: Int64
    }

    static func append(_ key: PackedKey, rev: Int, fingerprint: Int64, to out: inout [UInt8]) {
        out.append(key.count)
        key.withBytes { out.append(contentsOf: $0) }
        var v = UInt64(bitPattern: Int64(rev &+ 1))
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
        withUnsafeBytes(of: UInt64(bitPattern: fingerprint).littleEndian) { out.append(contentsOf: $0) }
    }

    /// The pack's entries, in the order written; nil for bytes that are not a pack.
    static func decode(_ bytes: [UInt8]) -> [Entry]? {
        var out: [Entry] = []
        var i = 0
        while i < bytes.count {
            let n = Int(bytes[i])
            i += 1
            guard n >= 1, n <= ActionKey.maxBytes, i + n <= bytes.count else { return nil }
            let key = bytes.withUnsafeBufferPointer { PackedKey(bytes: UnsafeBufferPointer(rebasing: $0[i..<(i + n)])) }
            i += n
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard i < bytes.count, shift < 64 else { return nil }
                let b = bytes[i]
                i += 1
                v |= UInt64(b & 0x7f) << shift
                if b < 0x80 { break }
                shift += 7
            }
            guard i + 8 <= bytes.count else { return nil }
            var fp: UInt64 = 0
            for j in 0..<8 { fp |= UInt64(bytes[i + j]) << (8 * UInt64(j)) }
            i += 8
            out.append(Entry(key: key, rev: Int(Int64(bitPattern: v)) &- 1, fingerprint: Int64(bitPattern: fp)))
        }
        return out
    }
}
