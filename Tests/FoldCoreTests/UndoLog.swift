import Testing
@testable import FoldCore

/// The daemon's history in miniature, for undo tests without I/O: every
/// change kept with its ops and its undo; a revert carried over the changes
/// after it and judged on the head, as the hub does it. A plain JSON
/// document follows every change through the generic RFC 6902 applier
/// (`JSONPatch`, checked against the conformance suite) and must stay equal
/// to the typed board; the generic applier must also agree with each
/// revert's verdict (the carried `test`s hold, or fail).
struct UndoLog {
    /// How a revert went: `rev` is the new change's, or the one named in the way.
    enum Outcome: Equatable {
        case applied(rev: Int)
        case unchanged
        case conflict(rev: Int, path: String)
    }

    private(set) var board: Board
    private(set) var doc: JSON
    private(set) var changes: [(ops: [PatchOp], inverse: [PatchOp])] = []
    var limits = Limits()
    var head: Int { changes.count }

    init(_ board: Board = .initial) {
        self.board = board
        doc = board.json
    }

    /// Applies an action that must change the board; its rev.
    @discardableResult
    mutating func act(_ action: Action) throws -> Int {
        let change = try #require(try board.applying(action, limits: limits), "\(action) changed nothing")
        try record(change)
        return head
    }

    /// Applies an action when the board accepts it; false when refused or a no-op.
    mutating func tryAct(_ action: Action) throws -> Bool {
        guard let change = try? board.applying(action, limits: limits) else { return false }
        try record(change)
        return true
    }

    /// `revert {rev}`, as the hub answers it.
    mutating func undo(_ rev: Int) throws -> Outcome {
        let inverse = changes[rev - 1].inverse
        let later = (rev..<head).map { (rev: $0 + 1, ops: changes[$0].ops) }
        // The positions alone (no values): what the generic applier is given.
        let positions = try? ChangeTrace.rebase(inverse, over: later).get()
        let carried: [PatchOp]
        switch ChangeTrace.rebase(inverse, over: later, on: board) {
        case .failure(let c):
            expectRefusedGenerically(positions, at: c.path)
            return .conflict(rev: c.rev, path: c.path)
        case .success(let ops): carried = ops
        }
        switch try board.reverting(carried, limits: limits) {
        case .conflict(let path):
            // Changes after the read: the hub names its head.
            expectRefusedGenerically(positions, at: path)
            return .conflict(rev: head, path: path)
        case .applied(nil):
            return .unchanged
        case .applied(let change?):
            // The carried undo's tests hold on the document too.
            #expect(throws: Never.self) { try JSONPatch.apply(carried, to: doc) }
            try record(change)
            return .applied(rev: head)
        }
    }

    /// The generic applier refuses the carried undo too, when its positions
    /// could be carried at all; except where what stands in the way is no
    /// value a `test` sees: a focus set since, or a section id taken since
    /// (RFC 6902's `add` would overwrite the one, duplicate the other).
    private func expectRefusedGenerically(_ carried: [PatchOp]?, at path: String) {
        guard let carried, path != "/sections" else { return }
        if path == "/focus" && board.focus != nil && carried.contains(where: { $0.name == "add" && $0.path == path }) { return }
        #expect((try? JSONPatch.apply(carried, to: doc)) == nil, "\(carried)")
    }

    private mutating func record(_ change: Change) throws {
        #expect(try board.patched(with: change.ops) == change.board)
        let inverse = try board.inverse(of: change.ops)
        doc = try JSONPatch.apply(change.ops, to: doc)
        #expect(doc == change.board.json)
        changes.append((change.ops, inverse))
        board = change.board
    }
}
