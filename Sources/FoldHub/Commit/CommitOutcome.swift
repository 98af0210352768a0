/// What the store said about a `commit` or a `probe`.
public enum CommitOutcome: Sendable, Equatable {
    case committed(batch: UInt64, seconds: Double)
    case failed(batch: UInt64, reason: String)
    /// A shared store refused the batch: another node moved one of its boards first.
    case moved(batch: UInt64, reason: String)
    case probed(ok: Bool, reason: String)
}
