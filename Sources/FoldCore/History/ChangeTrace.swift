/// Carries an undo over the changes made after its own: positions follow
/// array insertions and removals, and each operation learns the latest
/// change that touched what it addresses, to name it when a value no longer holds.
public enum ChangeTrace {
    /// The rev of the first change in `later` (oldest first) that replaced,
    /// removed or moved what `path` designated; array insertions and
    /// removals before it only shift it.
    public static func firstTouching(_ path: String, in later: [(rev: Int, ops: [PatchOp])]) -> Int? {
        guard var place = TracedPlace(element: path) else { return nil }
        for (rev, ops) in later {
            for op in ops { place.follow(op, rev: rev) }
            if place.changedBy != nil { return rev }
        }
        return nil
    }

    /// An undo's operations (in the coordinates right after its change)
    /// carried over later changes, their array indices shifted past
    /// insertions and removals; refused only when what one of them
    /// addresses was removed and not put back, naming the latest change
    /// that touched it. Values are not judged: see `rebase(_:over:on:)`.
    public static func rebase(_ undo: [PatchOp], over later: [(rev: Int, ops: [PatchOp])]) -> Result<[PatchOp], RebaseConflict> {
        let carried = carry(undo, over: later)
        if let c = lost(carried, undo) { return .failure(c) }
        return .success(carried.map(\.op))
    }

    /// The undo carried over later changes, then judged by values on
    /// `board` (the head): it is refused where one of its `test`s fails
    /// there (or the place an `add` or `move` goes back to is gone, or a
    /// focus was set since), naming the latest later change that touched
    /// that path. A later change that left the value as the undone change
    /// set it stands in no one's way. A refusal no later change explains
    /// (the board is ahead of `later`) is left to `Board.reverting`.
    public static func rebase(_ undo: [PatchOp], over later: [(rev: Int, ops: [PatchOp])], on board: Board) -> Result<[PatchOp], RebaseConflict> {
        let carried = carry(undo, over: later)
        if let c = lost(carried, undo) { return .failure(c) }
        let ops = carried.map(\.op)
        if case .refused(let i)? = try? board.undoing(ops), let rev = carried[i].changedBy {
            return .failure(RebaseConflict(rev: rev, path: undo[i].path))
        }
        return .success(ops)
    }

    /// One undo operation carried: where it now applies, the latest later
    /// change that touched what it addresses, and whether that is gone.
    struct Carried {
        var op: PatchOp
        var changedBy: Int?
        var lost: Bool
    }

    static func carry(_ undo: [PatchOp], over later: [(rev: Int, ops: [PatchOp])]) -> [Carried] {
        undo.map { op in
            // What an op reads or replaces is an element; where an `add` puts something, a position.
            var from: TracedPlace?
            var to: TracedPlace?
            switch op {
            case .test(let p, _), .replace(let p, _), .remove(let p): from = TracedPlace(element: p)
            case .add(let p, _): to = TracedPlace(position: p)
            case .move(let f, let p): (from, to) = (TracedPlace(element: f), TracedPlace(destination: p, movingFrom: f))
            case .copy(let f, let p): (from, to) = (TracedPlace(element: f), TracedPlace(position: p))
            }
            for (rev, ops) in later {
                for later in ops {
                    from?.follow(later, rev: rev)
                    to?.follow(later, rev: rev)
                }
            }
            let changedBy = [from?.changedBy, to?.changedBy].compactMap { $0 }.max()
            let lost = from?.isLost == true || to?.isLost == true
            let carried: PatchOp
            switch op {
            case .test(_, let v): carried = .test(path: from?.path ?? op.path, value: v)
            case .replace(_, let v): carried = .replace(path: from?.path ?? op.path, value: v)
            case .remove: carried = .remove(path: from?.path ?? op.path)
            case .add(_, let v): carried = .add(path: to?.path ?? op.path, value: v)
            case .move(let f, let p): carried = .move(from: from?.path ?? f, path: to?.destination(movingFrom: from) ?? p)
            case .copy(let f, let p): carried = .copy(from: from?.path ?? f, path: to?.path ?? p)
            }
            return Carried(op: carried, changedBy: changedBy, lost: lost)
        }
    }

    private static func lost(_ carried: [Carried], _ undo: [PatchOp]) -> RebaseConflict? {
        guard let i = carried.firstIndex(where: \.lost), let rev = carried[i].changedBy else { return nil }
        return RebaseConflict(rev: rev, path: undo[i].path)
    }
}

/// Why an undo cannot be carried over later changes: `rev` altered `path`.
public struct RebaseConflict: Error, Equatable, Sendable {
    public var rev: Int
    public var path: String
}
