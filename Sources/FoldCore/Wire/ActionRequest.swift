/// An action addressed to a board, as sent over WebSocket or HTTP.
public struct ActionRequest: Sendable, Equatable {
    /// Echoed in the `ack` or `error`.
    public var id: String?
    public var board: String
    /// Refuse with `conflict` unless the board is at exactly this rev.
    public var ifRev: Int?
    public var action: Action
    /// Makes the action exactly-once (`ActionKey`); already checked. Held
    /// packed: a key is read from the message into it, without a `String`.
    public var key: PackedKey?

    public init(id: String? = nil, board: String, ifRev: Int? = nil, action: Action, key: PackedKey? = nil) {
        self.id = id
        self.board = board
        self.ifRev = ifRev
        self.action = action
        self.key = key
    }
}
