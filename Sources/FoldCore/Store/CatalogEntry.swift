/// A board as the store lists it without its document: its name and where
/// it stands. The daemon starts from these and reads a board's document
/// when a client first uses it (`HistoryReader.readBoard`).
public struct CatalogEntry: Sendable, Equatable {
    public var name: String
    public var epoch: String
    /// The rev of its last committed change.
    public var rev: Int

    public init(name: String, epoch: String, rev: Int) {
        self.name = name
        self.epoch = epoch
        self.rev = rev
    }
}

/// One board read whole: its document at its last committed change, and its
/// kept changes up to that rev, oldest first (at most as many as asked).
public struct BoardRead: Sendable, Equatable {
    public var board: StoredBoard
    public var changes: [StoredChange]
    /// Its kept action keys as of that rev, oldest first, from a store other
    /// daemons write too (nil from one the daemon alone writes: its memory
    /// holds every key since start).
    public var keys: [StoredKey]?

    public init(board: StoredBoard, changes: [StoredChange], keys: [StoredKey]? = nil) {
        self.board = board
        self.changes = changes
        self.keys = keys
    }
}
