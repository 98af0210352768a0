/// What the store said about a `commit` or a `probe`.
public enum CommitOutcome: Sendable, Equatable {
    /// Durable: its entries may be answered.
    case committed(batch: UInt64, seconds: Double)
    /// Written but not yet durable (a store that syncs apart): the next batch may go to the store.
    case written(batch: UInt64)
    case failed(batch: UInt64, reason: String)
    /// A shared store refused the batch: another node moved one of its boards first.
    case moved(batch: UInt64, reason: String)
    case probed(ok: Bool, reason: String)
}
