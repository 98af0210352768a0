/// FNV-1a (64 bits) of the bytes, taken as they are written.
public struct FNV1a: FlatJSONSink {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    @inline(__always)
    mutating func add(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }

    public mutating func add(_ bytes: UnsafeRawBufferPointer) { value = Self.hash(value, bytes) }

    private static func hash(_ start: UInt64, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h = start
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    mutating func raw(_ text: StaticString) {
        add(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Text JSON writes as it is (no quote, backslash, control character or
    /// U+2028/2029's lead byte) is hashed in place; other text as escaped.
    mutating func string(_ s: String) {
        var text = s
        let quoted = (value ^ UInt64(UInt8(ascii: "\""))) &* 0x0000_0100_0000_01b3
        let plain: UInt64? = text.withUTF8 { bytes in
            var h = quoted
            for b in bytes {
                if b < 0x20 || b == 0x22 || b == 0x5C || b == 0xE2 { return nil }
                h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3
            }
            return h
        }
        if let plain {
            value = plain
            return add(UInt8(ascii: "\""))
        }
        var escaped: [UInt8] = []
        JSONWriter.appendString(s, to: &escaped)
        escaped.withUnsafeBytes { add($0) }
    }

    /// Decimal, as `JSONWriter.appendInt` writes it: most significant digit first.
    mutating func int(_ n: Int) {
        if n < 0 { add(UInt8(ascii: "-")) }
        var rest = n.magnitude
        var unit: UInt = 1
        while rest / unit >= 10 { unit *= 10 }
        while unit > 0 {
            add(UInt8(ascii: "0") + UInt8(rest / unit))
            rest %= unit
            unit /= 10
        }
    }
}
