/// How a board stands in a shared store compared with a position a daemon
/// holds: what other daemons committed since, as a follower reads it, or as
/// a refused batch reports it (`StoreError.caughtUp`).
public enum StoreUpdate: Sendable {
    /// Consecutive changes after the position, at `epoch`.
    case changes(board: String, epoch: String, [StoredChange])
    /// The board as it stands (another epoch, or the log no longer covers the gap).
    case board(StoredBoard)
    case deleted(board: String)
}
