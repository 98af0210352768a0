/// One RFC 6902 operation. Paths are JSON Pointers (RFC 6901), already escaped.
public enum PatchOp: Sendable, Equatable {
    case add(path: String, value: JSON)
    case remove(path: String)
    case replace(path: String, value: JSON)
    case move(from: String, path: String)
    case copy(from: String, path: String)
    case test(path: String, value: JSON)

    /// The same operation with its value left out (`null`): where it acts,
    /// not what it writes, which is all an undo needs of later changes.
    public var skeleton: PatchOp {
        switch self {
        case .add(let p, _): return .add(path: p, value: .null)
        case .replace(let p, _): return .replace(path: p, value: .null)
        case .test(let p, _): return .test(path: p, value: .null)
        case .remove, .move, .copy: return self
        }
    }

    /// The operation's name on the wire.
    public var name: String {
        switch self {
        case .add: return "add"
        case .remove: return "remove"
        case .replace: return "replace"
        case .move: return "move"
        case .copy: return "copy"
        case .test: return "test"
        }
    }

    /// `{"op":…,"from"?:…,"path":…,"value"?:…}`.
    public var json: JSON {
        var object = JSONObject([("op", .string(name))])
        switch self {
        case .add(let path, let value), .replace(let path, let value), .test(let path, let value):
            object["path"] = .string(path)
            object["value"] = value
        case .remove(let path):
            object["path"] = .string(path)
        case .move(let from, let path), .copy(let from, let path):
            object["from"] = .string(from)
            object["path"] = .string(path)
        }
        return .object(object)
    }

    /// Appends the same bytes as `json.encoded()` without building the tree.
    public func encode(into out: inout [UInt8]) {
        JSONWriter.appendRaw("{\"op\":", to: &out)
        JSONWriter.appendString(name, to: &out)
        switch self {
        case .add(let path, let value), .replace(let path, let value), .test(let path, let value):
            JSONWriter.appendRaw(",\"path\":", to: &out)
            JSONWriter.appendString(path, to: &out)
            JSONWriter.appendRaw(",\"value\":", to: &out)
            value.encode(into: &out)
        case .remove(let path):
            JSONWriter.appendRaw(",\"path\":", to: &out)
            JSONWriter.appendString(path, to: &out)
        case .move(let from, let path), .copy(let from, let path):
            JSONWriter.appendRaw(",\"from\":", to: &out)
            JSONWriter.appendString(from, to: &out)
            JSONWriter.appendRaw(",\"path\":", to: &out)
            JSONWriter.appendString(path, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A JSON array of operations: the `ops` of a `patch` message.
    public static func encode(_ ops: [PatchOp]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(2 + ops.count * 64)
        out.append(UInt8(ascii: "["))
        for (i, op) in ops.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            op.encode(into: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
