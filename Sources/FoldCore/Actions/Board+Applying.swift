/// The rules of every action. Each returns the new board and the smallest
/// patch that produces it, or nil when nothing would change (the daemon then
/// acks with the current rev and sends no patch).
extension Board {
    public func applying(_ action: Action, limits: Limits) throws(FoldError) -> Change? {
        if case .replace(let board) = action { return try replacing(with: board, limits: limits) }
        return try applyingEdit(action, limits: limits)?.keepingFocus(from: self)
    }

    private func applyingEdit(_ action: Action, limits: Limits) throws(FoldError) -> Change? {
        switch action {
        case .toggle(let id):
            let i = try requireIndex(of: id)
            return sections[i].expanded ? setExpanded(false, at: i) : expanding(at: i)
        case .expand(let id):
            let i = try requireIndex(of: id)
            return sections[i].expanded ? nil : expanding(at: i)
        case .collapse(let id):
            let i = try requireIndex(of: id)
            return sections[i].expanded ? setExpanded(false, at: i) : nil
        case .expandAll:
            guard mode == .multi else {
                throw FoldError(.invalid, "expandAll is not allowed in single mode")
            }
            return settingAll(expanded: true)
        case .collapseAll:
            return settingAll(expanded: false)
        case .setMode(let newMode):
            return settingMode(newMode)
        case .addSection(let draft, let at):
            return try adding(draft, at: at, limits: limits)
        case .removeSection(let id):
            let i = try requireIndex(of: id)
            var board = self
            board.sections.remove(at: i)
            return Change(board: board, ops: [.remove(path: Self.sectionPath(i))])
        case .moveSection(let id, let to):
            return try moving(id, to: to)
        case .setTitle(let id, let title):
            return try settingTitle(title, of: id, limits: limits)
        case .setItems(let id, let items):
            return try settingItems(items, of: id, limits: limits)
        case .focus(let id, let item):
            return try focusing(section: id, item: item)
        case .clearFocus:
            return clearingFocus()
        case .replace(let board):
            return try replacing(with: board, limits: limits)
        case .revert:
            // The undo is read from the history, which the daemon holds: see `reverting`.
            throw FoldError(.invalid, "revert needs the board's history")
        }
    }

    func requireIndex(of id: String) throws(FoldError) -> Int {
        guard let i = index(of: id) else {
            throw FoldError(.notFound, "no section '\(id)'")
        }
        return i
    }

    static func sectionPath(_ i: Int) -> String { "/sections/\(i)" }
    static func expandedPath(_ i: Int) -> String { "/sections/\(i)/expanded" }
}
