/// An accepted action's key (`ActionKey`) as the store keeps it: written in
/// the same transaction as the action's change (a no-op's key alone), so a
/// key is durable exactly when its action is.
public struct StoredKey: Sendable, Equatable {
    public var board: String
    public var packed: PackedKey
    /// The rev the action's ack carried: the board's rev once it was applied.
    public var rev: Int
    /// `ActionKey.fingerprint` of the action.
    public var fingerprint: Int64
    /// When it was committed (UTC milliseconds; 0 until the committer sets it).
    public var at: Int

    public var key: String { packed.string }

    public init(board: String, packed: PackedKey, rev: Int, fingerprint: Int64, at: Int = 0) {
        self.board = board
        self.packed = packed
        self.rev = rev
        self.fingerprint = fingerprint
        self.at = at
    }

    public init(board: String, key: String, rev: Int, fingerprint: Int64, at: Int = 0) {
        self.init(board: board, packed: PackedKey(key), rev: rev, fingerprint: fingerprint, at: at)
    }
}

/// A kept key the store may forget (`rev`: its answer's, where the store files it).
public struct KeyName: Sendable, Hashable {
    public var board: String
    public var packed: PackedKey
    public var rev: Int

    public var key: String { packed.string }

    public init(board: String, packed: PackedKey, rev: Int = 0) {
        self.board = board
        self.packed = packed
        self.rev = rev
    }

    public init(board: String, key: String, rev: Int = 0) {
        self.init(board: board, packed: PackedKey(key), rev: rev)
    }
}
