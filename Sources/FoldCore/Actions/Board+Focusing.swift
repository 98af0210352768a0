/// The shared focus (an extension): `focus` points at one item and expands
/// its section in the same patch (the accordion rule as always);
/// `clearFocus` removes it. `keepingFocus` runs after every other action but
/// `replace` (whose document is checked whole), so no edit can leave the
/// focus pointing at an item that is not there.
extension Board {
    func focusing(section id: String, item: Int) throws(FoldError) -> Change? {
        let i = try requireIndex(of: id)
        let count = sections[i].items.count
        guard item >= 0 && item < count else {
            throw FoldError(.invalid, count == 0
                ? "section '\(id)' has no items to focus"
                : "item \(item) is outside 0..<\(count) of section '\(id)'")
        }
        let wanted = Focus(section: id, item: item)
        guard focus != wanted || !sections[i].expanded else { return nil }
        var change = sections[i].expanded ? Change(board: self, ops: []) : expanding(at: i)
        if focus != wanted { change.setFocus(wanted, from: focus) }
        return change
    }

    func clearingFocus() -> Change? {
        guard focus != nil else { return nil }
        var change = Change(board: self, ops: [])
        change.setFocus(nil, from: focus)
        return change
    }

    /// Where the item named `id` sits in a section, if anywhere.
    func itemIndex(id: String, in section: String) -> Int? {
        guard let i = index(of: section) else { return nil }
        let items: [JSON] = sections[i].items
        for (n, item) in items.enumerated() where item["id"]?.stringValue == id { return n }
        return nil
    }
}

extension Change {
    /// The board's focus becomes `new`; the op that says so is appended
    /// (`old` is the focus in the state the ops apply to).
    mutating func setFocus(_ new: Focus?, from old: Focus?) {
        board.focus = new
        if let new {
            let value: JSON = new.json
            ops.append(old == nil ? PatchOp.add(path: "/focus", value: value) : PatchOp.replace(path: "/focus", value: value))
        } else if old != nil {
            ops.append(PatchOp.remove(path: "/focus"))
        }
    }

    /// After an action that did not set the focus itself: a focused item
    /// with an `id` is followed to its new index in the section (a stable
    /// name is what the id is for), and the focus is removed when that id
    /// is gone; any other focus is removed when its index no longer reaches
    /// an item. Either in the same patch.
    func keepingFocus(from old: Board) -> Change {
        guard let focus = board.focus, focus == old.focus else { return self }
        var change = self
        if let itemID = old.focusedItem?.item["id"]?.stringValue {
            let moved: Int? = board.itemIndex(id: itemID, in: focus.section)
            if let moved, moved != focus.item {
                change.setFocus(Focus(section: focus.section, item: moved), from: focus)
            } else if moved == nil {
                change.setFocus(nil, from: focus)
            }
        } else if !board.focusIsValid {
            change.setFocus(nil, from: focus)
        }
        return change
    }
}
