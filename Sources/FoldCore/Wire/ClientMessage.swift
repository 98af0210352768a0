/// A message from a client, decoded and checked for shape (not for rules:
/// those need the board, see `Board.applying`).
public enum ClientMessage: Sendable, Equatable {
    case subscribe(board: String, since: Position?)
    case unsubscribe(board: String)
    case action(ActionRequest)
    case auth(token: String)
    /// An extension: whether this connection follows the board's folds and
    /// focus or browses on its own (counted in `presence`).
    case view(following: Bool)
    /// An extension: learn whether the action sent with `key` was applied,
    /// and if it was not, make sure it never will be (`ack` with
    /// `duplicate`, or `expired` and the key is void).
    case settle(board: String, key: String, id: String?)
}

extension ClientMessage {
    /// The board the message is about, when it names one.
    public var board: String? {
        switch self {
        case .subscribe(let board, _), .unsubscribe(let board), .settle(let board, _, _): board
        case .action(let request): request.board
        case .auth, .view: nil
        }
    }
}
