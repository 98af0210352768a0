/// An action's key (`ActionKey`: at most 64 bytes) held inline, beside a
/// 64-bit hash made once: a key is copied, compared and filed from the
/// action's decoding to the store and back without a heap object, so a
/// board's ten thousand kept keys cost no reference counting and no
/// allocation each, and a table's probe compares hashes before any byte.
public struct PackedKey: Sendable, Hashable, CustomStringConvertible {
    public typealias Words = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    public let hash: UInt64
    /// The key's bytes, zero past `count` (so equal keys have equal words).
    private let words: Words
    public let count: UInt8

    /// `key` must be a valid key (`ActionKey.problem` is nil); longer input is cut at 64 bytes.
    public init(_ key: String) {
        var text = key
        self = text.withUTF8 { PackedKey(bytes: $0) }
    }

    public init(bytes: UnsafeBufferPointer<UInt8>) {
        var w: Words = (0, 0, 0, 0, 0, 0, 0, 0)
        let n = min(bytes.count, ActionKey.maxBytes)
        withUnsafeMutableBytes(of: &w) { raw in
            if n > 0, let base = bytes.baseAddress { raw.baseAddress!.copyMemory(from: base, byteCount: n) }
        }
        words = w
        count = UInt8(n)
        hash = Self.mix(w, count: n)
    }

    /// A word at a time over the words in use, then a final avalanche
    /// (murmur3's), so the low bits a table indexes by depend on every byte.
    private static func mix(_ w: Words, count: Int) -> UInt64 {
        var h: UInt64 = 0x9e37_79b9_7f4a_7c15 ^ UInt64(count)
        withUnsafeBytes(of: w) { raw in
            let used = (count + 7) / 8
            for i in 0..<used {
                h = (h ^ raw.load(fromByteOffset: i * 8, as: UInt64.self)) &* 0xff51_afd7_ed55_8ccd
                h ^= h >> 29
            }
        }
        h ^= h >> 33
        h = h &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }

    /// The key's bytes, for the length of `body`.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: words) { raw in try body(UnsafeRawBufferPointer(rebasing: raw[0..<Int(count)])) }
    }

    /// The key's bytes appended to `out` (no closure for a caller in another module to allocate).
    public func append(to out: inout [UInt8]) {
        withUnsafeBytes(of: words) { raw in out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[0..<Int(count)])) }
    }

    public var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }
    public var description: String { string }

    public static func == (a: PackedKey, b: PackedKey) -> Bool {
        guard a.hash == b.hash, a.count == b.count else { return false }
        return withUnsafeBytes(of: a.words) { x in
            withUnsafeBytes(of: b.words) { y in
                for i in 0..<8 where x.load(fromByteOffset: i * 8, as: UInt64.self) != y.load(fromByteOffset: i * 8, as: UInt64.self) { return false }
                return true
            }
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}
