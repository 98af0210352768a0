/// An accepted action: the board after it, and the RFC 6902 operations that
/// turn the board before it into that one.
public struct Change: Sendable, Equatable {
    public var board: Board
    public var ops: [PatchOp]

    public init(board: Board, ops: [PatchOp]) {
        self.board = board
        self.ops = ops
    }
}
