/// A refusal as the client sees it: an `error` message, or an HTTP error
/// body. `id` and `board` are echoed when they could be read.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var id: String?
    public var board: String?
    /// The HTTP status when not the code's own (422 for a key reused with another action).
    public var status: Int?

    public init(_ code: ErrorCode, _ message: String, id: String? = nil, board: String? = nil) {
        self.code = code
        self.message = message
        self.id = id
        self.board = board
    }

    /// The same refusal, addressed to the request it answers.
    public init(_ error: FoldError, id: String? = nil, board: String? = nil) {
        self.init(error.code, error.message, id: id, board: board)
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
