/// Follows one location of a board through later changes, to name the
/// change that altered it (why an undo conflicts).
public enum ChangeTrace {
    /// The rev of the first change in `later` (oldest first) that replaced,
    /// removed or moved what `path` designated; array insertions and
    /// removals before it only shift it.
    public static func firstTouching(_ path: String, in later: [(rev: Int, ops: [PatchOp])]) -> Int? {
        guard case .touched(let rev) = trace(path, position: false, in: later) else { return nil }
        return rev
    }

    /// Where a path stands after later changes, or the change that touched it.
    enum Traced: Equatable {
        case at(String)
        case touched(rev: Int)
    }

    /// `position`: the path names a place to insert at (an undo's `add`), not
    /// an element, so a removal right there only closes up behind it.
    static func trace(_ path: String, position: Bool, in later: [(rev: Int, ops: [PatchOp])]) -> Traced {
        guard var tokens = try? JSONPointer.tokens(path) else { return .at(path) }
        for (rev, ops) in later {
            for op in ops where touches(op, &tokens, position: position) { return .touched(rev: rev) }
        }
        return .at(JSONPointer.make(tokens))
    }

    /// An undo's operations (in the coordinates right after its change)
    /// carried over later changes: their array indices shifted past
    /// insertions and removals, or the first later change that altered what
    /// one of them tests, replaces, removes or moves.
    public static func rebase(_ undo: [PatchOp], over later: [(rev: Int, ops: [PatchOp])]) -> Result<[PatchOp], RebaseConflict> {
        var out: [PatchOp] = []
        for op in undo {
            func carry(_ p: String, position: Bool = false) throws(RebaseConflict) -> String {
                switch trace(p, position: position, in: later) {
                case .at(let q): return q
                case .touched(let rev): throw RebaseConflict(rev: rev, path: p)
                }
            }
            do throws(RebaseConflict) {
                switch op {
                case .test(let p, let v): out.append(.test(path: try carry(p), value: v))
                case .replace(let p, let v): out.append(.replace(path: try carry(p), value: v))
                case .remove(let p): out.append(.remove(path: try carry(p)))
                case .add(let p, let v): out.append(.add(path: try carry(p, position: true), value: v))
                case .move(let f, let p): out.append(.move(from: try carry(f), path: try carry(p, position: true)))
                case .copy(let f, let p): out.append(.copy(from: try carry(f), path: try carry(p, position: true)))
                }
            } catch {
                return .failure(error)
            }
        }
        return .success(out)
    }

    /// True when `op` changes what `tokens` designates; else shifts `tokens` past it.
    static func touches(_ op: PatchOp, _ tokens: inout [String], position: Bool = false) -> Bool {
        func split(_ p: String) -> [String]? { try? JSONPointer.tokens(p) }
        switch op {
        case .test: return false
        case .replace(let p, _):
            guard let t = split(p) else { return false }
            return isPrefix(t, of: tokens) || isPrefix(tokens, of: t)
        case .add(let p, _), .copy(_, let p):
            guard let t = split(p) else { return false }
            if shift(&tokens, at: t, by: 1) { return false }
            return isPrefix(t, of: tokens)
        case .remove(let p):
            guard let t = split(p) else { return false }
            if position && t == tokens { return false }
            if isPrefix(t, of: tokens) { return true }
            _ = shift(&tokens, at: t, by: -1)
            return false
        case .move(let from, let p):
            guard let f = split(from), let t = split(p) else { return false }
            if isPrefix(f, of: tokens) { return true }
            _ = shift(&tokens, at: f, by: -1)
            if shift(&tokens, at: t, by: 1) { return false }
            return isPrefix(t, of: tokens)
        }
    }

    /// An array element inserted (`by` 1) or removed (-1) at `at` moves
    /// `tokens` when it addresses a later element of the same array.
    static func shift(_ tokens: inout [String], at: [String], by delta: Int) -> Bool {
        guard let last = at.last, at.count <= tokens.count, Array(tokens.prefix(at.count - 1)) == at.dropLast(),
              let mine = JSONPointer.arrayIndex(tokens[at.count - 1]) else { return false }
        let k = last == "-" ? Int.max : (JSONPointer.arrayIndex(last) ?? Int.max)
        if delta > 0 ? k <= mine : k < mine {
            tokens[at.count - 1] = String(mine + delta)
            return true
        }
        return false
    }

    static func isPrefix(_ a: [String], of b: [String]) -> Bool {
        a.count <= b.count && Array(b.prefix(a.count)) == a
    }
}

/// Why an undo cannot be carried over later changes: `rev` altered `path`.
public struct RebaseConflict: Error, Equatable, Sendable {
    public var rev: Int
    public var path: String
}
