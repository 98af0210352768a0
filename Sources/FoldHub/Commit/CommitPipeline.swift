import FoldCore

/// The group-commit pipeline's state: `pending` collects while the batch
/// `inFlight` is being written; after a failure, `fault` refuses writes
/// until a probe succeeds.
struct CommitPipeline {
    var pending: [PendingEntry] = []
    var inFlight: (id: UInt64, entries: [PendingEntry])?
    var nextBatchID: UInt64 = 1
    /// Why the store refuses writes; nil while it accepts them.
    var fault: String?
    /// The waits between probes while `fault` is set.
    var backoff = Backoff(base: 0.25, cap: 5)

    /// True when nothing is waiting for the store.
    var isIdle: Bool { inFlight == nil && pending.isEmpty }
    var waiting: Int { pending.count + (inFlight?.entries.count ?? 0) }
}
