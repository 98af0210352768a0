/// How an undo went: applied (nil when the board already is as the undo
/// would leave it), or refused because a later change moved what it needs.
public enum RevertResult: Sendable, Equatable {
    case applied(Change?)
    /// A guard of the undo failed at `path` (in the board's coordinates right after the change).
    case conflict(path: String)
}

extension Board {
    /// Applies a recorded change's undo (`inverse`) as a new change. Its
    /// `test`s must hold on this board; the accordion rule applies to the
    /// result as to any action: in single mode, the section the undo opened
    /// stays open and any other closes.
    public func reverting(_ inverse: [PatchOp], limits: Limits) throws(FoldError) -> RevertResult {
        var board = self
        var ops: [PatchOp] = []
        for op in inverse {
            do throws(FoldError) {
                _ = try board.step(op)
            } catch where error.code == .conflict {
                if case .test(let path, _) = op { return .conflict(path: path) }
                throw error
            } catch where op.name == "add" || op.name == "move" {
                // The place it goes back to is gone (later removals): the same as a failed guard.
                return .conflict(path: op.path)
            }
            if case .test = op { continue }
            ops.append(op)
        }
        if board.mode == .single {
            let open = board.expandedIndices
            if open.count > 1 {
                let opened = open.filter { i in !(index(of: board.sections[i].id).map { sections[$0].expanded } ?? false) }
                let keep = opened.last ?? open[0]
                for i in open where i != keep {
                    board.sections[i].expanded = false
                    ops.append(.replace(path: Self.expandedPath(i), value: .bool(false)))
                }
            }
        }
        if !board.focusIsValid {
            // The undo left the focus on an item that is gone (as any edit would): it goes, in the same patch.
            var change = Change(board: board, ops: ops)
            change.setFocus(nil, from: board.focus)
            (board, ops) = (change.board, change.ops)
        }
        do throws(FoldError) {
            try board.validate(limits: limits)
        } catch where error.code == .invalid && board.sections.count != Set(board.sections.map(\.id)).count {
            // A later change added a section with the id the undo brings back.
            return .conflict(path: "/sections")
        }
        return .applied(board == self ? nil : Change(board: board, ops: ops))
    }
}

extension PatchOp {
    /// The operation's target path.
    public var path: String {
        switch self {
        case .add(let p, _), .remove(let p), .replace(let p, _), .move(_, let p), .copy(_, let p), .test(let p, _): return p
        }
    }
}
