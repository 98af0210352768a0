/// `replace`: the new document wholesale, sent as a small structural diff.
extension Board {
    func replacing(with new: Board, limits: Limits) throws(FoldError) -> Change? {
        try new.validate(limits: limits)
        guard new != self else { return nil }
        return Change(board: new, ops: diff(to: new))
    }

    /// `/mode` when it differs; then per-field replaces when both boards
    /// have the same section ids in the same order, else `/sections` whole;
    /// then `/focus` when it differs.
    public func diff(to new: Board) -> [PatchOp] {
        var change = Change(board: self, ops: diffSections(to: new))
        if focus != new.focus { change.setFocus(new.focus, from: focus) }
        return change.ops
    }

    private func diffSections(to new: Board) -> [PatchOp] {
        var ops: [PatchOp] = []
        if mode != new.mode {
            ops.append(.replace(path: "/mode", value: .string(new.mode.rawValue)))
        }
        guard sections.count == new.sections.count,
              zip(sections, new.sections).allSatisfy({ $0.id == $1.id })
        else {
            ops.append(.replace(path: "/sections", value: .array(new.sections.map(\.json))))
            return ops
        }
        for (i, (old, next)) in zip(sections, new.sections).enumerated() where old != next {
            let base = Self.sectionPath(i)
            if old.title != next.title {
                ops.append(.replace(path: base + "/title", value: .string(next.title)))
            }
            if old.items != next.items {
                ops.append(.replace(path: base + "/items", value: .array(next.items)))
            }
            if old.expanded != next.expanded {
                ops.append(.replace(path: base + "/expanded", value: .bool(next.expanded)))
            }
        }
        return ops
    }
}
