extension JSONPatch {
    /// Reads a patch document: an array of objects with a known `op`, a
    /// string `path`, and `value` or `from` where the operation needs one.
    /// Unknown members are ignored, as RFC 6902 section 4 requires.
    public static func decode(_ ops: JSON) throws(FoldError) -> [PatchOp] {
        guard let list = ops.arrayValue else {
            throw FoldError(.badRequest, "a patch must be an array")
        }
        var result: [PatchOp] = []
        result.reserveCapacity(list.count)
        for (i, entry) in list.enumerated() {
            result.append(try decodeOp(entry, at: i))
        }
        return result
    }

    private static func decodeOp(_ entry: JSON, at i: Int) throws(FoldError) -> PatchOp {
        guard let object = entry.objectValue else {
            throw FoldError(.badRequest, "operation \(i) must be an object")
        }
        guard let op = object["op"]?.stringValue else {
            throw FoldError(.badRequest, "operation \(i): 'op' must be a string")
        }
        guard let path = object["path"]?.stringValue else {
            throw FoldError(.badRequest, "operation \(i): 'path' must be a string")
        }
        func value() throws(FoldError) -> JSON {
            guard let value = object["value"] else {
                throw FoldError(.badRequest, "operation \(i): missing 'value'")
            }
            return value
        }
        func from() throws(FoldError) -> String {
            guard let from = object["from"]?.stringValue else {
                throw FoldError(.badRequest, "operation \(i): 'from' must be a string")
            }
            return from
        }
        switch op {
        case "add": return .add(path: path, value: try value())
        case "remove": return .remove(path: path)
        case "replace": return .replace(path: path, value: try value())
        case "move": return .move(from: try from(), path: path)
        case "copy": return .copy(from: try from(), path: path)
        case "test": return .test(path: path, value: try value())
        default: throw FoldError(.badRequest, "operation \(i): unknown op '\(op)'")
        }
    }
}
