import FoldCore

/// The keys of one commit, every board's, packed into one row of
/// `key_commits`: one row a commit instead of a row a board or a key
/// (SQLite's per-row work was most of what a keyed action cost the
/// committer). The row is a run of groups, each a board's keys of one time:
/// the board's name (a varint length, then UTF-8), the time and the number
/// of keys (varints), then each key: its length (1 byte), its bytes,
/// `rev + 1` as a varint (a void key's rev is -1), the fingerprint (8 bytes,
/// little-endian). A key moved out of an old row (`KeyQueues.compactable`)
/// keeps its time in a group of its own.
enum KeyPack {
    struct Entry: Equatable {
        var key: PackedKey
        var rev: Int
        var fingerprint: Int64
    }

    struct Group: Equatable {
        var board: String
        var at: Int
        var entries: [Entry]
    }

    /// A group's head; `count` entries (`append`) follow it.
    static func appendGroup(board: String, at: Int, count: Int, to out: inout [UInt8]) {
        var name = board
        name.withUTF8 { bytes in
            varint(UInt64(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        }
        varint(UInt64(bitPattern: Int64(at)), to: &out)
        varint(UInt64(count), to: &out)
    }

    static func append(_ key: PackedKey, rev: Int, fingerprint: Int64, to out: inout [UInt8]) {
        out.append(key.count)
        key.append(to: &out)
        varint(UInt64(bitPattern: Int64(rev &+ 1)), to: &out)
        withUnsafeBytes(of: UInt64(bitPattern: fingerprint).littleEndian) { out.append(contentsOf: $0) }
    }

    private static func varint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// The row's groups, in the order written; nil for bytes that are not a row of keys.
    static func decode(_ bytes: [UInt8]) -> [Group]? {
        var r = Reader(bytes: bytes)
        var out: [Group] = []
        while r.i < bytes.count {
            guard let n = r.varint(), n <= UInt64(Names.maxLength), r.i + Int(n) <= bytes.count else { return nil }
            let board = String(decoding: bytes[r.i..<(r.i + Int(n))], as: UTF8.self)
            r.i += Int(n)
            guard let at = r.varint(), let count = r.varint(), count <= UInt64(bytes.count) else { return nil }
            var group = Group(board: board, at: Int(Int64(bitPattern: at)), entries: [])
            group.entries.reserveCapacity(Int(count))
            for _ in 0..<Int(count) {
                guard let e = r.entry() else { return nil }
                group.entries.append(e)
            }
            out.append(group)
        }
        return out
    }

    /// Entries alone, without a group's head (a schema-7 pack), to the end of `bytes`.
    static func decodeEntries(_ bytes: [UInt8]) -> [Entry]? {
        var r = Reader(bytes: bytes)
        var out: [Entry] = []
        while r.i < bytes.count {
            guard let e = r.entry() else { return nil }
            out.append(e)
        }
        return out
    }

    private struct Reader {
        let bytes: [UInt8]
        var i = 0

        mutating func varint() -> UInt64? {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard i < bytes.count, shift < 64 else { return nil }
                let b = bytes[i]
                i += 1
                v |= UInt64(b & 0x7f) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }

        mutating func entry() -> Entry? {
            guard i < bytes.count else { return nil }
            let n = Int(bytes[i])
            i += 1
            guard n >= 1, n <= ActionKey.maxBytes, i + n <= bytes.count else { return nil }
            let key = bytes.withUnsafeBufferPointer { PackedKey(bytes: UnsafeBufferPointer(rebasing: $0[i..<(i + n)])) }
            i += n
            guard let v = varint(), i + 8 <= bytes.count else { return nil }
            var fp: UInt64 = 0
            for j in 0..<8 { fp |= UInt64(bytes[i + j]) << (8 * UInt64(j)) }
            i += 8
            return Entry(key: key, rev: Int(Int64(bitPattern: v)) &- 1, fingerprint: Int64(bitPattern: fp))
        }
    }
}
