/// Fold actions. They cannot grow the board, so no size check; each costs
/// one scan of the `expanded` flags and one copy-on-write of `sections`.
extension Board {
    /// Expands section `i`; in single mode the one previously expanded is
    /// collapsed by the same patch (the accordion rule), collapse first so
    /// no intermediate state has two open.
    func expanding(at i: Int) -> Change {
        var board = self
        var ops: [PatchOp] = []
        if mode == .single {
            for j in sections.indices where j != i && sections[j].expanded {
                board.sections[j].expanded = false
                ops.append(.replace(path: Self.expandedPath(j), value: .bool(false)))
            }
        }
        board.sections[i].expanded = true
        ops.append(.replace(path: Self.expandedPath(i), value: .bool(true)))
        return Change(board: board, ops: ops)
    }

    func setExpanded(_ expanded: Bool, at i: Int) -> Change {
        var board = self
        board.sections[i].expanded = expanded
        return Change(board: board, ops: [.replace(path: Self.expandedPath(i), value: .bool(expanded))])
    }

    func settingAll(expanded: Bool) -> Change? {
        var board = self
        var ops: [PatchOp] = []
        for i in sections.indices where sections[i].expanded != expanded {
            board.sections[i].expanded = expanded
            ops.append(.replace(path: Self.expandedPath(i), value: .bool(expanded)))
        }
        return ops.isEmpty ? nil : Change(board: board, ops: ops)
    }

    /// Switching to single keeps only the first expanded section open.
    func settingMode(_ newMode: BoardMode) -> Change? {
        guard newMode != mode else { return nil }
        var board = self
        board.mode = newMode
        var ops: [PatchOp] = [.replace(path: "/mode", value: .string(newMode.rawValue))]
        if newMode == .single {
            var seenOpen = false
            for i in sections.indices where sections[i].expanded {
                if seenOpen {
                    board.sections[i].expanded = false
                    ops.append(.replace(path: Self.expandedPath(i), value: .bool(false)))
                }
                seenOpen = true
            }
        }
        return Change(board: board, ops: ops)
    }
}
