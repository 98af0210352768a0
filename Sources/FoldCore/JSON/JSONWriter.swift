/// Byte-level building blocks for compact JSON output, shared by the value
/// encoder and the hand-written message encoders.
public enum JSONWriter {
    /// Appends `s` as a quoted JSON string. Escapes `"`, `\`, every control
    /// character, and U+2028/U+2029 (line breaks to JavaScript), so the
    /// output never holds a raw newline: batched messages are split on '\n'.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var native = s
        native.makeContiguousUTF8()  // a no-op for native strings; bridged ones are copied once
        native.utf8.withContiguousStorageIfAvailable { appendEscaped($0, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the decimal text of `n`.
    public static func appendInt(_ n: Int, to out: inout [UInt8]) {
        if n == 0 { out.append(UInt8(ascii: "0")); return }
        var magnitude = n.magnitude
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            while magnitude > 0 {
                raw[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(raw[i]) }
        }
    }

    /// Appends raw ASCII text (keys and punctuation of message templates).
    @inline(__always)
    public static func appendRaw(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var i = 0
        let count = bytes.count
        while i < count {
            let byte = bytes[i]
            let isLineSeparator = byte == 0xE2 && i + 2 < count && bytes[i + 1] == 0x80
                && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9)
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && !isLineSeparator {
                i += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            if isLineSeparator {
                appendRaw(bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", to: &out)
                i += 3
            } else {
                appendEscape(for: byte, to: &out)
                i += 1
            }
            runStart = i
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
    }

    private static func appendEscape(for byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case 0x22: appendRaw("\\\"", to: &out)
        case 0x5C: appendRaw("\\\\", to: &out)
        case 0x0A: appendRaw("\\n", to: &out)
        case 0x0D: appendRaw("\\r", to: &out)
        case 0x09: appendRaw("\\t", to: &out)
        case 0x08: appendRaw("\\b", to: &out)
        case 0x0C: appendRaw("\\f", to: &out)
        default:
            appendRaw("\\u00", to: &out)
            out.append(hexDigit(byte >> 4))
            out.append(hexDigit(byte & 0xF))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

extension JSONWriter {
    /// Bytes `appendString(s, to:)` would append, quotes included.
    public static func encodedLength(of s: String) -> Int {
        var length = 2
        var pending = 0  // how far into a possible E2 80 A8/A9 sequence we are
        for byte in s.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x08, 0x0C: length += 2
            case ..<0x20: length += 6
            default: length += 1
            }
            // U+2028/U+2029: 3 bytes become 6.
            if byte == 0xE2 { pending = 1 }
            else if pending == 1 && byte == 0x80 { pending = 2 }
            else if pending == 2 && (byte == 0xA8 || byte == 0xA9) { length += 3; pending = 0 }
            else { pending = 0 }
        }
        return length
    }
}
