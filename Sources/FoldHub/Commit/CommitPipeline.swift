import FoldCore

/// The group-commit pipeline's state: `pending` collects while the batch
/// `inFlight` is being written; after a failure, `fault` refuses writes
/// until a probe succeeds. With a store that syncs apart, a written batch
/// waits in `syncing` until it is durable, while the next one is written.
struct CommitPipeline {
    typealias Batch = (id: UInt64, entries: [PendingEntry])
    var pending: [PendingEntry] = []
    var inFlight: Batch?
    /// Written, not yet durable, oldest first: answered only once `committed`.
    var syncing: [Batch] = []
    var nextBatchID: UInt64 = 1
    /// Why the store refuses writes; nil while it accepts them.
    var fault: String?
    /// The waits between probes while `fault` is set.
    var backoff = Backoff(base: 0.25, cap: 5)

    /// True when nothing is waiting for the store.
    var isIdle: Bool { inFlight == nil && syncing.isEmpty && pending.isEmpty }
    var waiting: Int { pending.count + (inFlight?.entries.count ?? 0) + syncing.reduce(0) { $0 + $1.entries.count } }
    /// The newest and the oldest batch handed to the store that are not durable yet.
    var newestUnsynced: UInt64? { inFlight?.id ?? syncing.last?.id }
    var oldestUnsynced: UInt64? { syncing.first?.id ?? inFlight?.id }
    /// Whether `board` has an action in any batch or waiting for one.
    func holds(_ board: String) -> Bool {
        pending.contains { $0.board == board } || (inFlight?.entries.contains { $0.board == board } ?? false)
            || syncing.contains { $0.entries.contains { $0.board == board } }
    }
}
