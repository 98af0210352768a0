/// The cursor behind `JSONParser`: one pass over the bytes, recursive
/// descent for arrays and objects.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let allowDuplicateKeys: Bool
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowDuplicateKeys: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.allowDuplicateKeys = allowDuplicateKeys
    }

    func error(_ what: String, at offset: Int? = nil) -> JSONError {
        let at = offset ?? position
        return JSONError(message: "\(what) at byte \(at)", offset: at)
    }

    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Only the four RFC 8259 whitespace bytes.
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func readValue(depth: Int) throws(JSONError) -> JSON {
        guard let byte = peek else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try readLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func readLiteral(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw error("invalid literal") }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for i in 0..<count where bytes[position + i] != expected[i] {
            throw error("invalid literal")
        }
        position += count
    }

    private mutating func readArray(depth: Int) throws(JSONError) -> JSON {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth)") }
        position += 1
        var items: [JSON] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try readValue(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(items)
            case nil: throw error("unterminated array")
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func readObject(depth: Int) throws(JSONError) -> JSON {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth)") }
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if peek == UInt8(ascii: "}") { position += 1; return .object(object) }
        // A message's members (type, board, id, action, key and a few more)
        // at once, not grown 1, 2, 4, 8. Only at the top: nested objects (a
        // board's items) are kept, and most hold one or two members.
        if depth == 1 { object.reserveCapacity(8) }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = position
            let key = try readString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            let value = try readValue(depth: depth)
            if !allowDuplicateKeys, object.position(of: key) != nil {
                throw error("duplicate key", at: keyOffset)
            }
            object[key] = value
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(object)
            case nil: throw error("unterminated object")
            default: throw error("expected ',' or '}'")
            }
        }
    }
}
