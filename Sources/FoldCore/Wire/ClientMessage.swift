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
}
