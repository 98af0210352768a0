/// RFC 6902 operations applied to the typed board, for the shapes actions
/// produce (`/mode`, `/sections`, `/sections/N`, `/sections/N/title|items|expanded`,
/// and the shared focus's `/focus`),
/// each step also giving the operations that undo it. Cheaper than a trip
/// through the JSON tree: only the sections a change touches are looked at.
extension Board {
    /// The operations that take the board after `ops` back to this one (the
    /// board before them). Each undo step starts with `test`s of what the
    /// change set, and of the ids of the sections it addresses, so that
    /// applied over later changes it refuses instead of undoing the wrong thing.
    public func inverse(of ops: [PatchOp]) throws(FoldError) -> [PatchOp] {
        if let fields = fieldInverse(of: ops) { return fields }
        return try steppedInverse(of: ops)
    }

    /// The general undo: each op applied in turn on a copy, which says what it replaced.
    func steppedInverse(of ops: [PatchOp]) throws(FoldError) -> [PatchOp] {
        var board = self
        var steps: [[PatchOp]] = []
        for op in ops { steps.append(try board.step(op)) }
        return steps.reversed().flatMap { $0 }
    }

    /// The undo of ops that only replace fields of sections (a fold, a
    /// title, items: most changes), read off this board without copying it
    /// (`FieldUndo`, the same reading a record stores compact). The same ops
    /// as `steppedInverse`; nil for any other change.
    func fieldInverse(of ops: [PatchOp]) -> [PatchOp]? {
        guard let r = FieldUndo.replaced(by: ops, in: self) else { return nil }
        return FieldUndo.steps(undoing: ops, ids: r.ids.map(JSON.string), old: r.old)
    }

    /// The board with `ops` applied; a failed `test` throws `conflict` naming its path.
    public func patched(with ops: [PatchOp]) throws(FoldError) -> Board {
        var board = self
        for op in ops { _ = try board.step(op) }
        return board
    }

    /// Applies one operation in place; returns the operations that undo it.
    mutating func step(_ op: PatchOp) throws(FoldError) -> [PatchOp] {
        switch op {
        case .test(let path, let value):
            guard try self.value(at: path) == value else { throw FoldError(.conflict, "test failed at '\(path)'") }
            return []
        case .replace(let path, let value):
            let target = try Target(path, in: self)
            let old = try self.value(at: path)
            try set(target, to: value)
            return target.guards(in: self, path: path) + [.test(path: path, value: value), .replace(path: path, value: old)]
        case .add(let path, let value) where try Target(path, in: self, adding: true) == .focus:
            let old = focus
            try set(.focus, to: value)
            return [.test(path: path, value: value), old.map { .replace(path: path, value: $0.json) } ?? .remove(path: path)]
        case .remove(let path) where try Target(path, in: self) == .focus:
            guard let old = focus else { throw FoldError(.invalid, "path '\(path)' does not exist") }
            focus = nil
            return [.add(path: path, value: old.json)]
        case .add(let path, let value):
            guard case .section(let i) = try Target(path, in: self, adding: true) else { throw unsupported(op) }
            sections.insert(try Section(json: value, at: i), at: i)
            let at = Self.sectionPath(i)
            return [.test(path: at, value: value), .remove(path: at)]
        case .remove(let path):
            guard case .section(let i) = try Target(path, in: self) else { throw unsupported(op) }
            let old = sections.remove(at: i)
            return [.add(path: Self.sectionPath(i), value: old.json)]
        case .move(let from, let path):
            guard case .section(let a) = try Target(from, in: self), case .section(let b) = try Target(path, in: self) else {
                throw unsupported(op)
            }
            let section = sections.remove(at: a)
            sections.insert(section, at: b)
            return [.test(path: Self.sectionPath(b) + "/id", value: .string(section.id)),
                    .move(from: Self.sectionPath(b), path: Self.sectionPath(a))]
        case .copy:
            throw unsupported(op)
        }
    }

    private func unsupported(_ op: PatchOp) -> FoldError {
        FoldError(.invalid, "a '\(op.name)' at that path is not a board change")
    }

    /// The value a pointer designates, read from the typed board.
    func value(at path: String) throws(FoldError) -> JSON {
        switch try Target(path, in: self) {
        case .mode: return .string(mode.rawValue)
        case .focus:
            guard let focus else { throw FoldError(.invalid, "path '\(path)' does not exist") }
            return focus.json
        case .sections: return .array(sections.map(\.json))
        case .section(let i): return sections[i].json
        case .field(let i, let name):
            let s = sections[i]
            switch name {
            case "id": return .string(s.id)
            case "title": return .string(s.title)
            case "items": return .array(s.items)
            default: return .bool(s.expanded)
            }
        }
    }

    private mutating func set(_ target: Target, to value: JSON) throws(FoldError) {
        switch target {
        case .mode:
            guard let m = value.stringValue.flatMap(BoardMode.init(rawValue:)) else { throw FoldError(.invalid, "mode must be \"single\" or \"multi\"") }
            mode = m
        case .focus:
            do throws(FoldError) { focus = try Focus(json: value) } catch { throw FoldError(.invalid, error.message) }
        case .sections:
            guard let array = value.arrayValue else { throw FoldError(.invalid, "sections must be an array") }
            var next: [Section] = []
            for (i, s) in array.enumerated() { next.append(try Section(json: s, at: i)) }
            sections = next
        case .section(let i):
            sections[i] = try Section(json: value, at: i)
        case .field(let i, let name):
            switch (name, value) {
            case ("title", .string(let t)): sections[i].title = t
            case ("items", .array(let items)): sections[i].items = items
            case ("expanded", .bool(let e)): sections[i].expanded = e
            default: throw FoldError(.invalid, "'\(name)' of a section cannot be set to that")
            }
        }
    }
}

/// Where a board pointer lands.
enum Target: Equatable {
    case mode, sections, focus
    case section(Int)
    /// `id`, `title`, `items` or `expanded` of a section.
    case field(Int, String)

    /// `adding`: a section index may be one past the end (or `-`).
    init(_ path: String, in board: Board, adding: Bool = false) throws(FoldError) {
        let t = try JSONPointer.tokens(path)
        let count = board.sections.count
        func index(_ token: String) throws(FoldError) -> Int {
            if adding && token == "-" { return count }
            guard let i = JSONPointer.arrayIndex(token), i < count || (adding && i == count) else {
                throw FoldError(.invalid, "path '\(path)' does not exist")
            }
            return i
        }
        switch (t.count, t.first) {
        case (1, "mode"): self = .mode
        case (1, "focus"): self = .focus
        case (1, "sections"): self = .sections
        case (2, "sections"): self = .section(try index(t[1]))
        case (3, "sections") where ["id", "title", "items", "expanded"].contains(t[2]):
            guard let i = JSONPointer.arrayIndex(t[1]), i < count else { throw FoldError(.invalid, "path '\(path)' does not exist") }
            self = .field(i, t[2])
        default: throw FoldError(.invalid, "path '\(path)' is not part of a board")
        }
        if adding {
            switch self {
            case .section, .focus: break
            default: throw FoldError(.invalid, "only sections and the focus can be added")
            }
        }
    }

    /// A test of the section's id when the path is inside one: an undo must
    /// land on the section the change touched, wherever later changes left it.
    func guards(in board: Board, path: String) -> [PatchOp] {
        guard case .field(let i, let name) = self, name != "id" else { return [] }
        return [.test(path: Board.sectionPath(i) + "/id", value: .string(board.sections[i].id))]
    }
}
