extension JSON: Equatable {
    /// Numbers are equal when their values are (`1 == 1.0 == 1e0`), objects
    /// when they hold the same members in any order: the equality RFC 6902's
    /// `test` operation asks for.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let a), .bool(let b)):
            return a == b
        case (.number(let a), .number(let b)):
            if a == b { return true }
            guard let x = Double(a), let y = Double(b) else { return false }
            return x == y
        case (.string(let a), .string(let b)):
            return a == b
        case (.array(let a), .array(let b)):
            return a == b
        case (.object(let a), .object(let b)):
            return a == b
        default:
            return false
        }
    }
}
