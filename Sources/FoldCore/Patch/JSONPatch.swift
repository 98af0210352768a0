/// RFC 6902 application. Errors: a malformed patch is `bad_request`, an
/// operation that cannot apply (missing path, index out of range) is
/// `invalid`, a failed `test` is `conflict`. The document is a value: on
/// error the caller's copy is untouched.
public enum JSONPatch {
    /// Applies a patch given as JSON (an array of operation objects).
    public static func apply(_ ops: JSON, to doc: JSON) throws(FoldError) -> JSON {
        try apply(try decode(ops), to: doc)
    }

    public static func apply(_ ops: [PatchOp], to doc: JSON) throws(FoldError) -> JSON {
        var doc = doc
        for op in ops { try apply(op, to: &doc) }
        return doc
    }

    public static func apply(_ op: PatchOp, to doc: inout JSON) throws(FoldError) {
        switch op {
        case .add(let path, let value):
            try add(value, at: JSONPointer.tokens(path)[...], in: &doc)
        case .remove(let path):
            _ = try remove(at: JSONPointer.tokens(path)[...], in: &doc)
        case .replace(let path, let value):
            let tokens = try JSONPointer.tokens(path)
            _ = try Self.value(at: tokens, in: doc)
            try modify(&doc, at: tokens[...]) { (target: inout JSON) throws(FoldError) in target = value }
        case .move(let from, let path):
            let fromTokens = try JSONPointer.tokens(from)
            let pathTokens = try JSONPointer.tokens(path)
            if fromTokens == pathTokens {
                _ = try value(at: fromTokens, in: doc)
                return
            }
            if pathTokens.count > fromTokens.count, Array(pathTokens.prefix(fromTokens.count)) == fromTokens {
                throw FoldError(.invalid, "cannot move '\(from)' into its own child '\(path)'")
            }
            let moved = try remove(at: fromTokens[...], in: &doc)
            try add(moved, at: pathTokens[...], in: &doc)
        case .copy(let from, let path):
            let copied = try value(at: JSONPointer.tokens(from), in: doc)
            try add(copied, at: JSONPointer.tokens(path)[...], in: &doc)
        case .test(let path, let expected):
            guard try value(at: JSONPointer.tokens(path), in: doc) == expected else {
                throw FoldError(.conflict, "test failed at '\(path)'")
            }
        }
    }

    /// The value a pointer designates.
    public static func value(at tokens: [String], in doc: JSON) throws(FoldError) -> JSON {
        var current = doc
        for token in tokens {
            current = try child(token, of: current)
        }
        return current
    }

    private static func child(_ token: String, of node: JSON) throws(FoldError) -> JSON {
        switch node {
        case .object(let object):
            guard let value = object[token] else { throw missing(token) }
            return value
        case .array(let items):
            guard let i = JSONPointer.arrayIndex(token), i < items.count else { throw missing(token) }
            return items[i]
        default:
            throw missing(token)
        }
    }

    private static func missing(_ token: String) -> FoldError {
        FoldError(.invalid, "path component '\(token)' does not exist")
    }

    private static func add(_ value: JSON, at tokens: ArraySlice<String>, in doc: inout JSON) throws(FoldError) {
        guard let last = tokens.last else { doc = value; return }
        try modify(&doc, at: tokens.dropLast()) { (parent: inout JSON) throws(FoldError) in
            switch parent {
            case .object(var object):
                parent = .null  // drop the second reference so the update is in place
                object[last] = value
                parent = .object(object)
            case .array(var items):
                let index: Int
                if last == "-" {
                    index = items.count
                } else {
                    guard let i = JSONPointer.arrayIndex(last), i <= items.count else {
                        throw FoldError(.invalid, "array index '\(last)' out of range")
                    }
                    index = i
                }
                parent = .null
                items.insert(value, at: index)
                parent = .array(items)
            default:
                throw FoldError(.invalid, "cannot add '\(last)' to a scalar")
            }
        }
    }

    private static func remove(at tokens: ArraySlice<String>, in doc: inout JSON) throws(FoldError) -> JSON {
        guard let last = tokens.last else {
            throw FoldError(.invalid, "cannot remove the whole document")
        }
        var removed = JSON.null
        try modify(&doc, at: tokens.dropLast()) { (parent: inout JSON) throws(FoldError) in
            switch parent {
            case .object(var object):
                guard object[last] != nil else { throw missing(last) }
                parent = .null
                removed = object.removeValue(forKey: last) ?? .null
                parent = .object(object)
            case .array(var items):
                guard let i = JSONPointer.arrayIndex(last), i < items.count else { throw missing(last) }
                parent = .null
                removed = items.remove(at: i)
                parent = .array(items)
            default:
                throw missing(last)
            }
        }
        return removed
    }

    /// Runs `body` on the node at `tokens`, which must exist, updating
    /// containers in place along the way (each is detached from `doc` while
    /// its child changes, so copy-on-write does not copy it).
    private static func modify(
        _ node: inout JSON, at tokens: ArraySlice<String>,
        _ body: (inout JSON) throws(FoldError) -> Void
    ) throws(FoldError) {
        guard let token = tokens.first else { try body(&node); return }
        let rest = tokens.dropFirst()
        switch node {
        case .object(var object):
            guard var child = object[token] else { throw missing(token) }
            node = .null
            object[token] = .null
            try modify(&child, at: rest, body)
            object[token] = child
            node = .object(object)
        case .array(var items):
            guard let i = JSONPointer.arrayIndex(token), i < items.count else { throw missing(token) }
            var child = items[i]
            node = .null
            items[i] = .null
            try modify(&child, at: rest, body)
            items[i] = child
            node = .array(items)
        default:
            throw missing(token)
        }
    }
}
