extension JSON {
    /// Compact encoding: no whitespace, object members in stored order.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        encode(into: &out)
        return out
    }

    public func encode(into out: inout [UInt8]) {
        switch self {
        case .null: JSONWriter.appendRaw("null", to: &out)
        case .bool(let b): b ? JSONWriter.appendRaw("true", to: &out) : JSONWriter.appendRaw("false", to: &out)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): JSONWriter.appendString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.encode(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in object {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONWriter.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.encode(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The length of `encoded()`, counted without building it; stops early
    /// (returning a value above `limit`) once `limit` is exceeded.
    public func encodedByteCount(limit: Int = .max) -> Int {
        var total = 0
        addEncodedBytes(to: &total, limit: limit)
        return total
    }

    func addEncodedBytes(to total: inout Int, limit: Int) {
        guard total <= limit else { return }
        switch self {
        case .null: total += 4
        case .bool(let b): total += b ? 4 : 5
        case .number(let text): total += text.utf8.count
        case .string(let s): total += JSONWriter.encodedLength(of: s)
        case .array(let items):
            total += 2 + max(items.count - 1, 0)
            for item in items {
                item.addEncodedBytes(to: &total, limit: limit)
                if total > limit { return }
            }
        case .object(let object):
            total += 2 + max(object.count - 1, 0)
            for (key, value) in object {
                total += JSONWriter.encodedLength(of: key) + 1
                value.addEncodedBytes(to: &total, limit: limit)
                if total > limit { return }
            }
        }
    }

    /// Nesting depth: 0 for scalars, 1 for a flat array or object.
    public var depth: Int {
        switch self {
        case .array(let items): return 1 + (items.map(\.depth).max() ?? 0)
        case .object(let object): return 1 + (object.map { $0.value.depth }.max() ?? 0)
        default: return 0
        }
    }
}
