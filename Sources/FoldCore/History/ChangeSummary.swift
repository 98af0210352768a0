/// A change in words, for the history (the terminal client and the
/// dashboard print it as is): `toggle s1 → expanded 'Today'`.
public enum ChangeSummary {
    /// `reverted`: for a revert, the summary of the change it undid.
    public static func describe(_ action: Action, before: Board, after: Board, reverted: String? = nil) -> String {
        func title(_ id: String) -> String {
            let s = after.index(of: id).map { after.sections[$0] } ?? before.index(of: id).map { before.sections[$0] }
            return s.map { " '\(clip($0.title))'" } ?? ""
        }
        func fold(_ verb: String, _ id: String) -> String {
            // One lookup for the common case (the section is still there).
            if let i = after.index(of: id) {
                let s = after.sections[i]
                return verb + " " + id + (s.expanded ? " → expanded '" : " → collapsed '") + clip(s.title) + "'"
            }
            return "\(verb) \(id) → collapsed\(title(id))"
        }
        switch action {
        case .toggle(let id): return fold("toggle", id)
        case .expand(let id): return fold("expand", id)
        case .collapse(let id): return fold("collapse", id)
        case .expandAll: return "expand all (\(count(after.sections.count, "section")))"
        case .collapseAll: return "collapse all (\(count(after.sections.count, "section")))"
        case .setMode(let m): return "mode → \(m.rawValue)"
        case .addSection:
            let added = after.sections.first { s in before.index(of: s.id) == nil }
            return "add section \(added.map { "\($0.id) '\(clip($0.title))'" } ?? "")"
                + (added.flatMap { after.index(of: $0.id) }.map { " at \($0)" } ?? "")
        case .removeSection(let id): return "remove section \(id)\(title(id))"
        case .moveSection(let id, let to): return "move \(id)\(title(id)) to \(to)"
        case .setTitle(let id, let t):
            let old = before.index(of: id).map { before.sections[$0].title } ?? ""
            return "title of \(id) '\(clip(old))' → '\(clip(t))'"
        case .setItems(let id, let items): return "items of \(id)\(title(id)) → \(count(items.count, "item"))"
        case .replace(let b): return "replace the board (\(count(b.sections.count, "section")), \(b.mode.rawValue))"
        case .revert(let rev): return "undo rev \(rev)" + (reverted.map { " (\($0))" } ?? "")
        case .focus(let id, let n):
            let item: JSON? = after.index(of: id).flatMap { i in n < after.sections[i].items.count ? after.sections[i].items[n] : nil }
            return "focus \(id) item \(n)" + (item.map { " '\(clip(Item($0).label))'" } ?? "")
        case .clearFocus: return "clear the focus"
        }
    }

    /// `{"type":T,"section":ID}`, left open for more fields when `open`.
    static func sectionRecord(_ type: String, _ id: String, open: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + id.utf8.count)
        JSONWriter.appendRaw("{\"type\":", to: &out)
        JSONWriter.appendString(type, to: &out)
        JSONWriter.appendRaw(",\"section\":", to: &out)
        JSONWriter.appendString(id, to: &out)
        if !open { out.append(UInt8(ascii: "}")) }
        return out
    }

    /// `1 item`, `3 items`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// Long titles are cut: a summary is one line.
    static func clip(_ s: String) -> String {
        // Most titles: short, one line; no walk over characters.
        if s.utf8.count <= 40 && !s.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C || $0 >= 0x80 }) { return s }
        let line = s.map { $0.isNewline ? " " : $0 }
        return line.count <= 40 ? String(line) : String(line.prefix(39)) + "…"
    }

    /// The action as the history records it: its wire fields without `board`
    /// or `id`; a `replace`'s document is left out (the ops hold the change).
    public static func record(_ action: Action, reverts: String? = nil) -> [UInt8] {
        // The actions of nearly every change, written straight as bytes (the
        // same bytes as below): the committer builds one record per change.
        if reverts == nil {
            switch action {
            case .toggle(let id), .expand(let id), .collapse(let id): return sectionRecord(action.name, id)
            case .setTitle(let id, let title):
                var out = sectionRecord(action.name, id, open: true)
                JSONWriter.appendRaw(",\"title\":", to: &out)
                JSONWriter.appendString(title, to: &out)
                out.append(UInt8(ascii: "}"))
                return out
            default: break
            }
        }
        return generalRecord(action, reverts: reverts)
    }

    /// Any action's record, through a JSON object.
    static func generalRecord(_ action: Action, reverts: String?) -> [UInt8] {
        var o: JSONObject = ["type": .string(action.name)]
        if case .replace(let b) = action {
            o["sections"] = .int(b.sections.count)
        } else {
            action.encodeFields(into: &o)
        }
        if let reverts { o["reverts"] = .string(reverts) }
        return JSON.object(o).encoded()
    }
}
