extension JSONReader {
    /// Validates the RFC 8259 number grammar and returns the text unchanged:
    /// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`.
    mutating func readNumber() throws(JSONError) -> String {
        let start = position
        if peek == UInt8(ascii: "-") { position += 1 }
        guard let first = peek, isDigit(first) else { throw error("invalid number") }
        position += 1
        if first == UInt8(ascii: "0") {
            if let next = peek, isDigit(next) { throw error("leading zero in number") }
        } else {
            skipDigits()
        }
        if peek == UInt8(ascii: ".") {
            position += 1
            guard let d = peek, isDigit(d) else { throw error("invalid number") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            position += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
            guard let d = peek, isDigit(d) else { throw error("invalid number") }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while let byte = peek, isDigit(byte) { position += 1 }
    }
}
