import FoldCore

/// A board the reader read for the hub (`HubEffect.readBoard`, answered
/// with `HubInput.boardRead`), its document parsed off the service thread.
public enum BoardLoad: Sendable {
    /// The document at `rev`, its kept changes up to it, oldest first, and
    /// (from a shared store) its kept action keys (`BoardRead.keys`).
    case loaded(epoch: String, rev: Int, board: Board, changes: [StoredChange], keys: [StoredKey]?)
    /// The store has no such board (another node deleted it).
    case missing
    /// Its document does not parse: the board is skipped, as a start-up would.
    case unreadable(String)
    /// The store could not be read: the board stays where it was, and the next use reads again.
    case failed(StoreError)

    /// What a read came to. Limits and item rules are not applied again
    /// (`Board(trusted:)`): what was accepted once stays readable.
    public init(_ read: Result<BoardRead?, StoreError>) {
        switch read {
        case .failure(let error): self = .failed(error)
        case .success(nil): self = .missing
        case .success(let r?):
            do {
                let board = try Board(trusted: JSONParser.parse(r.board.state, maxDepth: 256))
                self = .loaded(epoch: r.board.epoch, rev: r.board.rev, board: board, changes: r.changes, keys: r.keys)
            } catch {
                self = .unreadable("\(error)")
            }
        }
    }
}
