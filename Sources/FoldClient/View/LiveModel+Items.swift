import FoldCore

/// The cursor among items, and the focus (extensions): ↑↓ walk headers and
/// the items of open sections; Enter on an item sets the board's focus; a
/// new focus takes a following screen's cursor to it.
extension LiveModel {
    /// One row up or down: into an open section's items, out of them, on.
    mutating func stepCursor(_ direction: Int) {
        guard let sections = shown?.sections, !sections.isEmpty else { return }
        let here = sections[min(cursorIndex, sections.count - 1)]
        let count = here.expanded ? here.items.count : 0
        if direction > 0 {
            let next = (cursorItem ?? -1) + 1
            if next < count { return moveCursor(to: cursorIndex, item: next) }
            if cursorIndex + 1 < sections.count { moveCursor(to: cursorIndex + 1) }
        } else if let item = cursorItem {
            moveCursor(to: cursorIndex, item: item > 0 ? item - 1 : nil)
        } else if cursorIndex > 0 {
            let above = sections[cursorIndex - 1]
            let last = above.expanded && !above.items.isEmpty ? above.items.count - 1 : nil
            moveCursor(to: cursorIndex - 1, item: last)
        }
    }

    /// The cursor onto the focused item, scrolled into view (when it is shown).
    mutating func goToFocus(_ focus: Focus) {
        guard let sections = shown?.sections, let i = sections.firstIndex(where: { $0.id == focus.section }) else {
            return reconcileCursor()
        }
        let visible = sections[i].expanded && focus.item < sections[i].items.count
        moveCursor(to: i, item: visible ? focus.item : nil)
    }

    /// True when item `n` of section `id` is the board's focus.
    public func isFocused(_ id: String, _ n: Int) -> Bool {
        document?.focus == Focus(section: id, item: n)
    }
}
