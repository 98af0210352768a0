/// Where a board's history stands: `rev` counts accepted changes within one
/// `epoch`; a new epoch means the history cannot be continued.
public struct Position: Sendable, Equatable, Hashable {
    public var epoch: String
    public var rev: Int

    public init(epoch: String, rev: Int) {
        self.epoch = epoch
        self.rev = rev
    }
}
