import FoldCore

/// What other nodes committed to a shared store, as read from its log: the
/// input that keeps a node's boards and subscribers in step with the cluster.
public enum RemoteUpdate: Sendable {
    /// Committed changes, oldest first, at `epoch` (the log's rows for revs
    /// after what this node holds; ones it holds already are skipped).
    case changes(board: String, epoch: String, [StoredChange])
    /// The whole board, when the log no longer covers the gap or the board
    /// was (re)created on another node.
    case snapshot(board: String, epoch: String, rev: Int, state: Board)
    case deleted(board: String)
    /// Viewers per board on the other nodes, as their heartbeat rows say
    /// (a node that stopped beating is not counted). The whole map: a board
    /// missing from it has no viewer elsewhere.
    case presence([String: ViewerCount])
}
