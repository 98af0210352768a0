extension JSONReader {
    /// Reads a string starting at its opening quote. Strings without escapes
    /// (nearly all) become a `String` straight from the validated bytes.
    mutating func readString() throws(JSONError) -> String {
        position += 1
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            } else if byte == UInt8(ascii: "\\") {
                var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
                return try readEscapedTail(into: &buffer)
            } else if byte < 0x20 {
                throw error("control character in string")
            } else if byte < 0x80 {
                position += 1
            } else {
                try skipMultiByteScalar()
            }
        }
        throw error("unterminated string")
    }

    /// Continues a string once an escape was seen, collecting the decoded bytes.
    private mutating func readEscapedTail(into buffer: inout [UInt8]) throws(JSONError) -> String {
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: buffer, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                try readEscape(into: &buffer)
            } else if byte < 0x20 {
                throw error("control character in string")
            } else if byte < 0x80 {
                buffer.append(byte)
                position += 1
            } else {
                let start = position
                try skipMultiByteScalar()
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
            }
        }
        throw error("unterminated string")
    }

    private mutating func readEscape(into buffer: inout [UInt8]) throws(JSONError) {
        let escapeOffset = position
        guard position + 1 < bytes.count else { throw error("unterminated string") }
        let code = bytes[position + 1]
        position += 2
        switch code {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone low surrogate", at: escapeOffset)
            }
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < bytes.count,
                      bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("lone high surrogate", at: escapeOffset) }
                position += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("lone high surrogate", at: escapeOffset)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar, to: &buffer)
        default:
            throw error("invalid escape", at: escapeOffset)
        }
    }

    private mutating func readHex4() throws(JSONError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            buffer.append(UInt8(scalar))
        case ..<0x800:
            buffer.append(UInt8(0xC0 | scalar >> 6))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            buffer.append(UInt8(0xE0 | scalar >> 12))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | scalar >> 18))
            buffer.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629 table: no overlongs,
    /// no surrogates, nothing past U+10FFFF) and steps over it.
    private mutating func skipMultiByteScalar() throws(JSONError) {
        let lead = bytes[position]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw error("invalid UTF-8")
        }
        guard bytes.count - position >= length else { throw error("invalid UTF-8") }
        let second = bytes[position + 1]
        guard second >= low && second <= high else { throw error("invalid UTF-8") }
        for i in 2..<max(length, 2) where bytes[position + i] & 0xC0 != 0x80 {
            throw error("invalid UTF-8")
        }
        position += length
    }
}
