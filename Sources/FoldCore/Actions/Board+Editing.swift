/// Actions that change a board's structure or content. These may grow the
/// document, so they check every limit, the board size included.
extension Board {
    func adding(_ draft: SectionDraft, at position: Int?, limits: Limits) throws(FoldError) -> Change {
        let id: String
        if let given = draft.id {
            guard Names.isValid(given) else {
                throw FoldError(.badRequest, "section id '\(given)' must be 1-64 characters of [A-Za-z0-9_.-]")
            }
            guard index(of: given) == nil else {
                throw FoldError(.invalid, "section '\(given)' already exists")
            }
            id = given
        } else {
            id = generatedID()
        }
        try Self.checkTitle(draft.title, limits: limits)
        try Self.checkItems(draft.items, limits: limits)
        guard sections.count < limits.maxSections else {
            throw FoldError(.invalid, "a board holds at most \(limits.maxSections) sections")
        }
        let at = position ?? sections.count
        guard at >= 0 && at <= sections.count else {
            throw FoldError(.invalid, "index \(at) is outside 0...\(sections.count)")
        }
        let section = Section(id: id, title: draft.title, items: draft.items, expanded: draft.expanded)
        var board = self
        var ops: [PatchOp] = []
        if mode == .single && section.expanded {
            // Accordion: the new open section closes the old one, in the same patch.
            for j in sections.indices where sections[j].expanded {
                board.sections[j].expanded = false
                ops.append(.replace(path: Self.expandedPath(j), value: .bool(false)))
            }
        }
        board.sections.insert(section, at: at)
        ops.append(.add(path: Self.sectionPath(at), value: section.json))
        try board.checkSize(limits: limits)
        return Change(board: board, ops: ops)
    }

    /// The smallest n ≥ the section count such that "s<n>" is unused:
    /// deterministic, so every replica of a log agrees on it.
    func generatedID() -> String {
        let used = Set(sections.map(\.id))
        var n = sections.count
        while used.contains("s\(n)") { n += 1 }
        return "s\(n)"
    }

    func moving(_ id: String, to: Int) throws(FoldError) -> Change? {
        let i = try requireIndex(of: id)
        guard to >= 0 && to < sections.count else {
            throw FoldError(.invalid, "index \(to) is outside 0..<\(sections.count)")
        }
        guard to != i else { return nil }
        var board = self
        let section = board.sections.remove(at: i)
        board.sections.insert(section, at: to)
        // RFC 6902 move removes first, then inserts: the section lands at `to`.
        return Change(board: board, ops: [.move(from: Self.sectionPath(i), path: Self.sectionPath(to))])
    }

    func settingTitle(_ title: String, of id: String, limits: Limits) throws(FoldError) -> Change? {
        let i = try requireIndex(of: id)
        try Self.checkTitle(title, limits: limits)
        guard sections[i].title != title else { return nil }
        var board = self
        let grew = title.utf8.count > sections[i].title.utf8.count
        board.sections[i].title = title
        if grew { try board.checkSize(limits: limits) }
        return Change(board: board, ops: [.replace(path: Self.sectionPath(i) + "/title", value: .string(title))])
    }

    func settingItems(_ items: [JSON], of id: String, limits: Limits) throws(FoldError) -> Change? {
        let i = try requireIndex(of: id)
        try Self.checkItems(items, limits: limits)
        guard sections[i].items != items else { return nil }
        var board = self
        board.sections[i].items = items
        try board.checkSize(limits: limits)
        return Change(board: board, ops: [.replace(path: Self.sectionPath(i) + "/items", value: .array(items))])
    }
}
