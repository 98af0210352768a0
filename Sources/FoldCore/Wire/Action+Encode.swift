extension Action {
    /// The action-specific fields of its wire message (PROTOCOL.md), beside `type`:
    /// the clients' encoders and the history's record both use it.
    public func encodeFields(into o: inout JSONObject) {
        switch self {
        case .toggle(let s), .expand(let s), .collapse(let s), .removeSection(let s):
            o["section"] = .string(s)
        case .expandAll, .collapseAll:
            break
        case .setMode(let mode):
            o["mode"] = .string(mode.rawValue)
        case .addSection(let draft, let at):
            var d: JSONObject = [:]
            if let id = draft.id { d["id"] = .string(id) }
            d["title"] = .string(draft.title)
            d["items"] = .array(draft.items)
            if draft.expanded { d["expanded"] = .bool(true) }
            o["section"] = .object(d)
            if let at { o["at"] = .int(at) }
        case .moveSection(let s, let to):
            o["section"] = .string(s)
            o["to"] = .int(to)
        case .setTitle(let s, let title):
            o["section"] = .string(s)
            o["title"] = .string(title)
        case .setItems(let s, let items):
            o["section"] = .string(s)
            o["items"] = .array(items)
        case .replace(let board):
            o["state"] = board.json
        case .revert(let rev):
            o["rev"] = .int(rev)
        case .focus(let s, let item):
            o["section"] = .string(s)
            o["item"] = .int(item)
        case .clearFocus:
            break
        }
    }
}
