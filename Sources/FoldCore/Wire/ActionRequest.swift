/// An action addressed to a board, as sent over WebSocket or HTTP.
public struct ActionRequest: Sendable, Equatable {
    /// Echoed in the `ack` or `error`.
    public var id: String?
    public var board: String
    /// Refuse with `conflict` unless the board is at exactly this rev.
    public var ifRev: Int?
    public var action: Action
    /// Makes the action exactly-once (`ActionKey`); already checked.
    public var key: String?

    public init(id: String? = nil, board: String, ifRev: Int? = nil, action: Action, key: String? = nil) {
        self.id = id
        self.board = board
        self.ifRev = ifRev
        self.action = action
        self.key = key
    }
}
