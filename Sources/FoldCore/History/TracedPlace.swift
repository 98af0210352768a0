/// One place in a board followed through later changes (`ChangeTrace`).
///
/// An element is a value an undo reads or replaces: insertions at or
/// before it push it on, removals before it pull it back, and its removal
/// from an array (or that of what holds it) leaves a gap; a removed object
/// member is simply absent, for the undo's `test`s to see. A position is where an undo's
/// `add` puts something back, between two neighbours, and is lost when
/// what holds it is replaced or removed.
///
/// A gap or a position remembers the elements removed right next to it
/// since ("ghosts"), newest last: an insertion at its index is taken for
/// the newest coming back (undos come back in reverse order), before it or
/// after it as it stood, and for a gap's own element, the gap is filled.
/// Whether it is the same value there is for the undo's `test`s to say.
struct TracedPlace {
    enum Kind { case element, position }
    enum Ghost { case own, before, after }

    private(set) var tokens: [String]
    let kind: Kind
    /// An element's gap: how many leading tokens name the place that is empty.
    private(set) var gap: Int?
    /// A position whose array was replaced or removed.
    private(set) var broken = false
    /// The latest rev that touched the place.
    private(set) var changedBy: Int?
    private var ghosts: [Ghost] = []

    init(tokens: [String], kind: Kind) {
        self.tokens = tokens
        self.kind = kind
    }

    init?(element path: String) {
        guard let t = try? JSONPointer.tokens(path) else { return nil }
        self.init(tokens: t, kind: .element)
    }

    init?(position path: String) {
        guard let t = try? JSONPointer.tokens(path) else { return nil }
        self.init(tokens: t, kind: .position)
    }

    var path: String { JSONPointer.make(tokens) }

    /// An element still in a gap, or a broken position, at the end.
    var isLost: Bool { gap != nil || broken }

    /// How deep a change can reach: to the gap while there is one.
    private var depth: Int { gap ?? tokens.count }

    /// Between neighbours (a gap, a position) rather than on an element.
    private var isBetween: Bool { gap != nil || kind == .position }

    mutating func follow(_ op: PatchOp, rev: Int) {
        func split(_ p: String) -> [String]? { try? JSONPointer.tokens(p) }
        switch op {
        case .test: return
        case .replace(let p, _): if let t = split(p) { replaced(t, rev) }
        case .add(let p, _), .copy(_, let p): if let t = split(p) { added(t, rev) }
        case .remove(let p): if let t = split(p) { removed(t, rev) }
        case .move(let f, let p):
            if let t = split(f) { removed(t, rev) }
            if let t = split(p) { added(t, rev) }
        }
    }

    /// A value set at `t` (a replace, or an add that is no array insertion).
    private mutating func replaced(_ t: [String], _ rev: Int) {
        if t.count < depth && isPrefix(t, of: tokens) {
            holderReplaced(rev)
        } else if isPrefix(t, of: tokens) || (gap == nil && isPrefix(tokens, of: t)) {
            changedBy = rev
        }
    }

    private mutating func added(_ t: [String], _ rev: Int) {
        if let (k, mine) = indices(at: t) {
            if k < mine || (k == mine && !isBetween) {
                tokens[t.count - 1] = String(mine + 1)
            } else if k == mine {
                switch ghosts.popLast() {
                case .own?:
                    gap = nil
                    changedBy = rev
                case .after?: break
                case .before?, nil: tokens[t.count - 1] = String(mine + 1)
                }
            }
            return
        }
        replaced(t, rev)
    }

    private mutating func removed(_ t: [String], _ rev: Int) {
        if let (k, mine) = indices(at: t) {
            if k == mine && !isBetween {
                gap = t.count
                ghosts = [.own]
                changedBy = rev
            } else if k == mine {
                ghosts.append(.after)
            } else if k < mine {
                tokens[t.count - 1] = String(mine - 1)
                if k == mine - 1 && isBetween { ghosts.append(.before) }
            }
            return
        }
        if t.count < depth && isPrefix(t, of: tokens) {
            // What holds the place goes.
            if kind == .position { broken = true } else { (gap, ghosts) = (t.count, [.own]) }
            changedBy = rev
        } else if gap == nil && isPrefix(tokens, of: t) {
            changedBy = rev
        }
    }

    /// What holds the place was replaced: a gap under it may be filled by
    /// the new value (the tests tell); a position is lost.
    private mutating func holderReplaced(_ rev: Int) {
        if kind == .position { broken = true }
        gap = nil
        ghosts = []
        changedBy = rev
    }

    /// The index `at` addresses and the place's own, when `at` is an element
    /// of an array on the place's path (no deeper than a gap).
    private func indices(at: [String]) -> (Int, Int)? {
        guard let last = at.last, at.count <= depth, Array(tokens.prefix(at.count - 1)) == at.dropLast(),
              let mine = JSONPointer.arrayIndex(tokens[at.count - 1]) else { return nil }
        return (last == "-" ? Int.max : (JSONPointer.arrayIndex(last) ?? Int.max), mine)
    }

    private func isPrefix(_ a: [String], of b: [String]) -> Bool {
        a.count <= b.count && Array(b.prefix(a.count)) == a
    }
}

extension TracedPlace {
    /// A move's destination counts in the array without the moved element:
    /// traced as a position in the array with it (one on, past it) ...
    init?(destination path: String, movingFrom from: String) {
        guard var t = try? JSONPointer.tokens(path), let f = try? JSONPointer.tokens(from) else { return nil }
        if let (a, b) = Self.siblingIndices(t, f), a >= b { t[t.count - 1] = String(a + 1) }
        self.init(tokens: t, kind: .position)
    }

    /// ... and counted back without the element, wherever it now stands.
    func destination(movingFrom from: TracedPlace?) -> String {
        guard let from, let (a, b) = Self.siblingIndices(tokens, from.tokens), a > b else { return path }
        var t = tokens
        t[t.count - 1] = String(a - 1)
        return JSONPointer.make(t)
    }

    private static func siblingIndices(_ t: [String], _ f: [String]) -> (Int, Int)? {
        guard t.count == f.count, t.dropLast() == f.dropLast(), let a = t.last.flatMap(JSONPointer.arrayIndex),
              let b = f.last.flatMap(JSONPointer.arrayIndex) else { return nil }
        return (a, b)
    }
}
