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
        var (board, ops): (Board, [PatchOp])
        switch try undoing(inverse) {
        case .refused(let i): return .conflict(path: inverse[i].path)
        case .done(let b, let o): (board, ops) = (b, o)
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

/// An undo's operations stepped through on a copy of the board.
enum UndoSteps {
    /// The board after them, and those that are not `test`s.
    case done(Board, [PatchOp])
    /// The index of the first one refused.
    case refused(at: Int)
}

extension Board {
    /// Steps through an undo's operations; refused at the first `test` that
    /// fails (or whose path is gone), `add` or `move` whose place is gone, or `add`
    /// of a focus over one set since (the undo of a cleared focus finds the
    /// focus absent, as its change left it, or stands aside).
    func undoing(_ inverse: [PatchOp]) throws(FoldError) -> UndoSteps {
        var board = self
        var ops: [PatchOp] = []
        for (i, op) in inverse.enumerated() {
            if case .add(let path, _) = op, board.focus != nil, (try? Target(path, in: board, adding: true)) == .focus {
                return .refused(at: i)
            }
            do throws(FoldError) {
                _ = try board.step(op)
            } catch where op.name == "test" || op.name == "add" || op.name == "move" {
                // A guard that fails or finds nothing there; a place gone.
                return .refused(at: i)
            }
            if case .test = op { continue }
            ops.append(op)
        }
        return .done(board, ops)
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
