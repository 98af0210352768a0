/// The stored undo of a change that only replaced fields of sections (a
/// fold, a title, items: nearly every change): `{"ids":[…],"old":[…]}`, for
/// each forward op the id of the section it addressed and the value it
/// replaced. About 30 bytes where the full inverse takes about 170, and made
/// without parsing a path into strings. The full inverse (exactly
/// `Board.inverse(of:)`'s ops) is rebuilt from it and the change's forward
/// ops wherever a record is read; any other change stores its full inverse,
/// an array, so the first byte tells the forms apart.
public enum FieldUndo {
    /// The compact undo of `ops` applied to `before`, or nil when an op is not
    /// a replace of a section's title, items or fold, or replaces one twice.
    public static func encode(_ ops: [PatchOp], before: Board) -> [UInt8]? {
        guard !ops.isEmpty else { return nil }
        var ids: [UInt8] = Array(#"{"ids":["#.utf8)
        var old: [UInt8] = Array(#"],"old":["#.utf8)
        for (n, op) in ops.enumerated() {
            guard case .replace(let path, _) = op, let (i, field) = FieldPath.parse(path), i < before.sections.count,
                  !ops[..<n].contains(where: { if case .replace(path, _) = $0 { true } else { false } }) else { return nil }
            if n > 0 {
                ids.append(UInt8(ascii: ","))
                old.append(UInt8(ascii: ","))
            }
            let s = before.sections[i]
            JSONWriter.appendString(s.id, to: &ids)
            switch field {
            case .title: JSONWriter.appendString(s.title, to: &old)
            case .expanded: JSONWriter.appendRaw(s.expanded ? "true" : "false", to: &old)
            case .items: JSON.array(s.items).encode(into: &old)
            }
        }
        ids += old
        JSONWriter.appendRaw("]}", to: &ids)
        return ids
    }

    /// Whether `stored` is this form (else it is a full inverse, or empty).
    public static func isCompact(_ stored: [UInt8]) -> Bool { stored.first == UInt8(ascii: "{") }

    /// The full inverse from what a record stores (either form) and the
    /// change's encoded forward ops; nil when there is none or it is unreadable.
    public static func inverse(stored: [UInt8], forward: [UInt8]) -> [PatchOp]? {
        guard !stored.isEmpty, let parsed = try? JSONParser.parse(stored, maxDepth: 512) else { return nil }
        guard isCompact(stored) else { return try? JSONPatch.decode(parsed) }
        guard let ids = parsed["ids"]?.arrayValue, let old = parsed["old"]?.arrayValue, ids.count == old.count,
              let ops = try? JSONPatch.decode(JSONParser.parse(forward, maxDepth: 512)), ops.count == ids.count else { return nil }
        var out: [PatchOp] = []
        out.reserveCapacity(ops.count * 3)
        for n in ops.indices.reversed() {
            guard case .replace(let path, let value) = ops[n], let (i, _) = FieldPath.parse(path), ids[n].stringValue != nil else { return nil }
            out.append(.test(path: Board.sectionPath(i) + "/id", value: ids[n]))
            out.append(.test(path: path, value: value))
            out.append(.replace(path: path, value: old[n]))
        }
        return out
    }

    /// The full inverse, encoded, as the history sends it: a stored full
    /// inverse as it is, a compact one rebuilt; empty when there is none.
    public static func inverseBytes(stored: [UInt8], forward: [UInt8]) -> [UInt8] {
        guard isCompact(stored) else { return stored }
        return inverse(stored: stored, forward: forward).map(PatchOp.encode) ?? []
    }
}

/// `/sections/N/title`, `/sections/N/items` or `/sections/N/expanded`, read
/// off the path's bytes (no tokens allocated): the paths actions write.
enum FieldPath {
    enum Field { case title, items, expanded }

    static func parse(_ path: String) -> (Int, Field)? {
        var path = path
        return path.withUTF8 { b -> (Int, Field)? in
            let prefix: StaticString = "/sections/"
            let p = prefix.utf8Start
            guard b.count > prefix.utf8CodeUnitCount + 2 else { return nil }
            for k in 0..<prefix.utf8CodeUnitCount where b[k] != p[k] { return nil }
            var k = prefix.utf8CodeUnitCount
            let digits = k
            var i = 0
            while k < b.count, b[k] >= UInt8(ascii: "0"), b[k] <= UInt8(ascii: "9") {
                // A leading zero is not an array index (RFC 6901); nor is an index of 10 digits or more here.
                guard k - digits < 9, !(k > digits && b[digits] == UInt8(ascii: "0")) else { return nil }
                i = i * 10 + Int(b[k] - UInt8(ascii: "0"))
                k += 1
            }
            guard k > digits, k < b.count, b[k] == UInt8(ascii: "/") else { return nil }
            let rest = UnsafeBufferPointer(rebasing: b[(k + 1)...])
            if rest.elementsEqual("title".utf8) { return (i, .title) }
            if rest.elementsEqual("items".utf8) { return (i, .items) }
            if rest.elementsEqual("expanded".utf8) { return (i, .expanded) }
            return nil
        }
    }
}
