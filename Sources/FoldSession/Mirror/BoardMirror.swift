import FoldCore

/// A client's copy of one board, kept in step by snapshots and patches
/// (applied with `JSONPatch.apply`), with its position for resuming.
/// Pure state: the owner feeds it events and acts on what it returns.
public struct BoardMirror: Sendable {
    public let board: String
    /// Nil until the first snapshot, and after the board was deleted.
    public private(set) var state: JSON?
    /// The state as a typed board, when it reads as one. Read as trusted:
    /// the client must not refuse a board a daemon with other limits accepted.
    public private(set) var document: Board?
    public private(set) var position: Position?
    public private(set) var viewers: Int?
    /// How many of them follow the board (presence's `following`), when the daemon says.
    public private(set) var following: Int?

    /// What an event did to the mirror.
    public enum Outcome: Sendable, Equatable {
        /// The state changed (snapshot or patch).
        case changed
        /// Nothing about the board (another board, or a message type the mirror ignores).
        case unchanged
        case presence
        case deleted
        /// A patch did not follow the mirror's position, or did not apply:
        /// subscribe again (the daemon answers with a snapshot).
        case outOfStep(String)
    }

    public init(board: String) {
        self.board = board
    }

    public mutating func apply(_ event: ServerEvent) -> Outcome {
        guard event.board == board else { return .unchanged }
        switch event {
        case .snapshot(_, let p, let s):
            set(state: s, at: p)
            return .changed
        case .patch(_, let p, let ops, _):
            guard let current = position, let state else { return .outOfStep("patch before any snapshot") }
            if p.epoch == current.epoch, p.rev <= current.rev { return .unchanged }  // already have it
            guard p.epoch == current.epoch, p.rev == current.rev + 1 else {
                return .outOfStep("patch \(p.rev) does not follow rev \(current.rev)")
            }
            do {
                set(state: try JSONPatch.apply(ops, to: state), at: p)
                return .changed
            } catch {
                return .outOfStep("patch \(p.rev) does not apply: \(error)")
            }
        case .presence(_, let n, let f):
            viewers = n
            following = f
            return .presence
        case .deleted:
            state = nil
            document = nil
            return .deleted
        default:
            return .unchanged
        }
    }

    private mutating func set(state s: JSON, at p: Position) {
        state = s
        position = p
        document = try? Board(trusted: s)
    }


    /// The id of section `#N` (0-based), or the text itself when it is not of that form.
    public func resolveSection(_ ref: String) -> Result<String, FoldError> {
        guard ref.hasPrefix("#") else { return .success(ref) }
        guard let n = Int(ref.dropFirst()), n >= 0 else {
            return .failure(FoldError(.badRequest, "'\(ref)' is not #N with N a number"))
        }
        guard let doc = document, n < doc.sections.count else {
            return .failure(FoldError(.notFound, "no section \(ref) (the board has \(document?.sections.count ?? 0))"))
        }
        return .success(doc.sections[n].id)
    }

    /// The index of an item of section `id`: `ref` itself when it is a
    /// number, else the item whose `id` is `ref`.
    public func resolveItem(_ ref: String, in id: String) -> Result<Int, FoldError> {
        if let n = Int(ref) { return .success(n) }
        guard let section = document?.sections.first(where: { $0.id == id }) else {
            return .failure(FoldError(.notFound, "no section '\(id)'"))
        }
        guard let n = section.items.firstIndex(where: { Item($0).id == ref }) else {
            return .failure(FoldError(.notFound, "no item '\(ref)' in section '\(id)' (give its index or its id)"))
        }
        return .success(n)
    }
}
