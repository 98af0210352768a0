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
    /// Written straight as bytes: the committer builds one per change.
    public static func encode(_ ops: [PatchOp], before: Board) -> [UInt8]? {
        var out: [UInt8] = []
        var old: [UInt8] = []
        out.reserveCapacity(48)
        old.reserveCapacity(32)
        JSONWriter.appendRaw(#"{"ids":["#, to: &out)
        let read = visit(ops, in: before) { n, s, field in
            if n > 0 {
                out.append(UInt8(ascii: ","))
                old.append(UInt8(ascii: ","))
            }
            JSONWriter.appendString(s.id, to: &out)
            switch field {
            case .title: JSONWriter.appendString(s.title, to: &old)
            case .expanded: JSONWriter.appendRaw(s.expanded ? "true" : "false", to: &old)
            case .items: JSON.array(s.items).encode(into: &old)
            }
        }
        guard read else { return nil }
        JSONWriter.appendRaw(#"],"old":["#, to: &out)
        out.append(contentsOf: old)
        JSONWriter.appendRaw("]}", to: &out)
        return out
    }

    /// For each of `ops`, the id of the section it addresses and the value it
    /// replaces, read off `before`; nil where `visit` says so.
    static func replaced(by ops: [PatchOp], in before: Board) -> (ids: [String], old: [JSON])? {
        var ids: [String] = [], old: [JSON] = []
        ids.reserveCapacity(ops.count)
        old.reserveCapacity(ops.count)
        let read = visit(ops, in: before) { _, s, field in
            ids.append(s.id)
            switch field {
            case .title: old.append(.string(s.title))
            case .expanded: old.append(.bool(s.expanded))
            case .items: old.append(.array(s.items))
            }
        }
        return read ? (ids, old) : nil
    }

    /// The one reading of a change of fields: `each` gets every op's index,
    /// the section it addresses in `before` (such ops move no section, so
    /// every old value is where it was) and the field. False, stopping
    /// there, unless there are ops and every one replaces a section's title,
    /// items or fold, and none a path another one replaced before it.
    private static func visit(_ ops: [PatchOp], in before: Board, _ each: (Int, borrowing Section, FieldPath.Field) -> Void) -> Bool {
        guard !ops.isEmpty else { return false }
        for n in ops.indices {
            guard case .replace(let path, _) = ops[n], let (i, field) = FieldPath.parse(path), i < before.sections.count,
                  !ops[..<n].contains(where: { if case .replace(path, _) = $0 { true } else { false } }) else { return false }
            each(n, before.sections[i], field)
        }
        return true
    }

    /// The undo of field replaces `ops`, given the id of the section each
    /// addressed and the value it replaced: last op first, each a `test` of
    /// the section's id and of the value set, then the replace back.
    static func steps(undoing ops: [PatchOp], ids: [JSON], old: [JSON]) -> [PatchOp]? {
        guard ids.count == ops.count, old.count == ops.count else { return nil }
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

    /// Whether `stored` is this form (else it is a full inverse, or empty).
    public static func isCompact(_ stored: [UInt8]) -> Bool { stored.first == UInt8(ascii: "{") }

    /// The full inverse from what a record stores (either form) and the
    /// change's encoded forward ops; nil when there is none or it is unreadable.
    public static func inverse(stored: [UInt8], forward: [UInt8]) -> [PatchOp]? {
        guard !stored.isEmpty, let parsed = try? JSONParser.parse(stored, maxDepth: 512) else { return nil }
        guard isCompact(stored) else { return try? JSONPatch.decode(parsed) }
        guard let ids = parsed["ids"]?.arrayValue, let old = parsed["old"]?.arrayValue,
              let ops = try? JSONPatch.decode(JSONParser.parse(forward, maxDepth: 512)) else { return nil }
        return steps(undoing: ops, ids: ids, old: old)
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
