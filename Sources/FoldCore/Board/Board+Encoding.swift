/// The canonical form: `{"mode":…,"sections":[{"id":…,"title":…,"items":[…],"expanded":…},…]}`,
/// keys in exactly that order, then `"focus":{"section":…,"item":…}` when
/// there is one (so a board without a focus encodes as it always did).
extension Board {
    public var json: JSON {
        var fields: [(String, JSON)] = [
            ("mode", .string(mode.rawValue)),
            ("sections", .array(sections.map(\.json))),
        ]
        if let focus { fields.append(("focus", focus.json)) }
        return .object(JSONObject(fields))
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + sections.count * 64)
        encode(into: &out)
        return out
    }

    /// Writes bytes directly, without building a `JSON` tree first.
    public func encode(into out: inout [UInt8]) {
        JSONWriter.appendRaw("{\"mode\":", to: &out)
        JSONWriter.appendString(mode.rawValue, to: &out)
        JSONWriter.appendRaw(",\"sections\":[", to: &out)
        for (i, section) in sections.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            section.encode(into: &out)
        }
        JSONWriter.appendRaw("]", to: &out)
        if let focus {
            JSONWriter.appendRaw(",\"focus\":", to: &out)
            focus.json.encode(into: &out)
        }
        JSONWriter.appendRaw("}", to: &out)
    }

    /// The length of `encoded()`, without building it; stops counting once
    /// past `limit`.
    public func encodedByteCount(limit: Int = .max) -> Int {
        // {"mode":"…","sections":[…]}
        var total = 8 + JSONWriter.encodedLength(of: mode.rawValue) + 15 + max(sections.count - 1, 0)
        for section in sections {
            total += section.encodedByteCount(limit: limit)
            if total > limit { break }
        }
        if let focus { focus.json.addEncodedBytes(to: &total, limit: limit); total += 9 }
        return total
    }
}

extension Section {
    public var json: JSON {
        .object(JSONObject([
            ("id", .string(id)),
            ("title", .string(title)),
            ("items", .array(items)),
            ("expanded", .bool(expanded)),
        ]))
    }

    public func encode(into out: inout [UInt8]) {
        JSONWriter.appendRaw("{\"id\":", to: &out)
        JSONWriter.appendString(id, to: &out)
        JSONWriter.appendRaw(",\"title\":", to: &out)
        JSONWriter.appendString(title, to: &out)
        JSONWriter.appendRaw(",\"items\":", to: &out)
        JSON.array(items).encode(into: &out)
        JSONWriter.appendRaw(",\"expanded\":", to: &out)
        JSONWriter.appendRaw(expanded ? "true}" : "false}", to: &out)
    }

    public func encodedByteCount(limit: Int = .max) -> Int {
        // {"id":…,"title":…,"items":…,"expanded":…}
        var total = 6 + 9 + 9 + 12 + 1
        total += JSONWriter.encodedLength(of: id) + JSONWriter.encodedLength(of: title)
        total += expanded ? 4 : 5
        JSON.array(items).addEncodedBytes(to: &total, limit: limit)
        return total
    }
}
