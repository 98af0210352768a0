import FoldCore
import FoldTransport

/// Messages rebuilt from the store's log, where the originator is no longer known.
enum OutFrameFactory {
    static func patch(board: String, epoch: String, rev: Int, ops: [UInt8]) -> OutFrame {
        OutFrame(ServerMessage.patch(board: board, epoch: epoch, rev: rev, ops: ops, by: nil))
    }
}
