import FoldCore

/// A history read the reader thread is doing for the hub, and who waits for it.
enum PendingRead {
    case http(exchange: UInt64, board: String)
    case revert(request: ActionRequest, rev: Int, reply: Reply, by: String?, actor: Author)
}

extension PendingRead {
    /// The board read.
    var board: String {
        switch self {
        case .http(_, let board): board
        case .revert(let request, _, _, _, _): request.board
        }
    }
}
