/// A JSON value as it travels on the wire.
///
/// Numbers keep their validated source text, so nothing is lost in a round
/// trip (`1e400`, `-0.5`, 20-digit ids); equality compares them by value.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    /// The number's text, already validated against the RFC 8259 grammar.
    case number(String)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

extension JSON {
    /// A number from an integer; the text is its decimal form.
    public static func int(_ value: Int) -> JSON { .number(String(value)) }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The value when the number's text is a plain integer that fits `Int`
    /// exactly; `1.0`, `1e2` and out-of-range integers give nil.
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        return Int(text)
    }

    public var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The member `key` when this is an object that has it.
    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
}
