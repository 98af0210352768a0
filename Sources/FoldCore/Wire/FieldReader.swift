/// Typed access to a message's members; every failure is a `bad_request`
/// naming the field, addressed with whatever `id` and `board` are known.
struct FieldReader {
    let object: JSONObject
    var id: String?
    var board: String?

    func fail(_ message: String) -> WireError {
        fail(.badRequest, message)
    }

    func fail(_ code: ErrorCode, _ message: String) -> WireError {
        WireError(code, message, id: id, board: board)
    }

    func string(_ name: String) throws(WireError) -> String {
        guard let value = try optionalString(name) else {
            throw fail("field '\(name)' must be a string")
        }
        return value
    }

    func optionalString(_ name: String) throws(WireError) -> String? {
        guard let value = object[name] else { return nil }
        guard let s = value.stringValue else { throw fail("field '\(name)' must be a string") }
        return s
    }

    func bool(_ name: String, default fallback: Bool) throws(WireError) -> Bool {
        guard let value = object[name] else { return fallback }
        guard let b = value.boolValue else { throw fail("field '\(name)' must be a boolean") }
        return b
    }

    func bool(_ name: String) throws(WireError) -> Bool {
        guard let b = object[name]?.boolValue else { throw fail("field '\(name)' must be a boolean") }
        return b
    }

    /// Integers only: `1.5`, `1e400` and integers beyond `Int` are refused.
    func optionalInt(_ name: String) throws(WireError) -> Int? {
        guard let value = object[name] else { return nil }
        guard let n = value.intValue else { throw fail("field '\(name)' must be an integer") }
        return n
    }

    func int(_ name: String) throws(WireError) -> Int {
        guard let n = try optionalInt(name) else { throw fail("field '\(name)' must be an integer") }
        return n
    }

    func array(_ name: String) throws(WireError) -> [JSON] {
        guard let items = object[name]?.arrayValue else { throw fail("field '\(name)' must be an array") }
        return items
    }

    func object(_ name: String) throws(WireError) -> JSONObject {
        guard let o = object[name]?.objectValue else { throw fail("field '\(name)' must be an object") }
        return o
    }

    /// A board name: present, a string, and a valid name.
    func boardName(_ name: String = "board") throws(WireError) -> String {
        let value = try string(name)
        guard Names.isValid(value) else {
            throw fail("field '\(name)' must be 1-64 characters of [A-Za-z0-9_.-]")
        }
        return value
    }
}
