/// RFC 6901 pointers: `""` is the whole document, `/a/b` walks members or
/// array indices; `~1` stands for `/` and `~0` for `~` inside a token.
public enum JSONPointer {
    /// Builds a pointer from unescaped tokens.
    public static func make(_ tokens: [String]) -> String {
        var out = ""
        for token in tokens {
            out.append("/")
            out.append(escape(token))
        }
        return out
    }

    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return token
        }
        var out = ""
        for ch in token.unicodeScalars {
            switch ch {
            case "~": out.append("~0")
            case "/": out.append("~1")
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// Splits and unescapes a pointer; a `~` not followed by 0 or 1 is an error.
    public static func tokens(_ pointer: String) throws(FoldError) -> [String] {
        if pointer.isEmpty { return [] }
        guard pointer.utf8.first == UInt8(ascii: "/") else {
            throw FoldError(.badRequest, "JSON Pointer '\(pointer)' must start with '/'")
        }
        var result: [String] = []
        for raw in pointer.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            guard raw.contains(UInt8(ascii: "~")) else {
                result.append(String(decoding: raw, as: UTF8.self))
                continue
            }
            var bytes: [UInt8] = []
            var iterator = raw.makeIterator()
            while let byte = iterator.next() {
                guard byte == UInt8(ascii: "~") else { bytes.append(byte); continue }
                switch iterator.next() {
                case UInt8(ascii: "0"): bytes.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): bytes.append(UInt8(ascii: "/"))
                default: throw FoldError(.badRequest, "invalid '~' escape in JSON Pointer '\(pointer)'")
                }
            }
            result.append(String(decoding: bytes, as: UTF8.self))
        }
        return result
    }

    /// An array index token: `0` or a digit string without a leading zero
    /// that fits `Int`. (`-` is handled by callers that accept it.)
    static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        if first == UInt8(ascii: "0") && utf8.count > 1 { return nil }
        return Int(token)
    }
}
