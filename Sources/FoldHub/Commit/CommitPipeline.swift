import FoldCore

/// A commit's life, as one machine: requests wait in `pending`, are sealed
/// into one batch at a time (`inFlight`: one transaction), are written, wait
/// in `syncing` while a store that syncs apart makes them durable (the next
/// batch is written meanwhile), and are answered once `committed`. A batch
/// that fails refuses everything written after it and every write until a
/// probe succeeds (`fault`). On a shared store, a batch another node
/// refused (`moved`) waits in `awaitingCatchUp` for its boards to be caught
/// up, then is applied again as one batch (`regrouping`); remote updates of
/// a board with writes waiting are skipped and asked again once the store
/// has answered (`remoteSkipped`).
///
/// One method per input; each returns what the hub must do. The hub owns
/// the boards, so it builds a batch's contents (`seal`'s `build`) and
/// carries out the answers; every decision about a batch is made here.
struct CommitPipeline {
    typealias Batch = (id: UInt64, entries: [PendingEntry])

    /// A store shared with other nodes (PostgreSQL): answers judged without
    /// a change are confirmed against the store's head with a batch.
    let shared: Bool
    private(set) var pending: [PendingEntry] = []
    private(set) var inFlight: Batch?
    /// Written, not yet durable, oldest first: answered only once `committed`.
    private(set) var syncing: [Batch] = []
    private(set) var nextBatchID: UInt64 = 1
    /// Why the store refuses writes; nil while it accepts them.
    private(set) var fault: String?
    /// The waits between probes while `fault` is set.
    private var backoff = Backoff(base: 0.25, cap: 5)
    /// Requests of a batch another node refused, waiting for their board's catch-up.
    private(set) var awaitingCatchUp: [PendingEntry] = []
    /// Boards whose remote updates were skipped while this node's writes waited.
    private(set) var remoteSkipped: Set<String> = []
    /// While set, accepted entries wait to be sealed together (`caughtUp`).
    private(set) var regrouping = false

    init(shared: Bool = false) { self.shared = shared }

    // MARK: what the hub asks

    /// True when nothing is waiting for the store.
    var isIdle: Bool { inFlight == nil && syncing.isEmpty && pending.isEmpty }
    var waiting: Int { pending.count + (inFlight?.entries.count ?? 0) + syncing.reduce(0) { $0 + $1.entries.count } }
    /// The newest and the oldest batch handed to the store that are not durable yet.
    var newestUnsynced: UInt64? { inFlight?.id ?? syncing.last?.id }
    var oldestUnsynced: UInt64? { syncing.first?.id ?? inFlight?.id }
    /// The entry that carries `key` on `board`, in any batch or waiting for one.
    func entry(keyed key: PackedKey, on board: String) -> PendingEntry? { keyed.find(key.hash) { $0.board == board && $0.key == key } }
    /// The keyed entries of `pending`, `inFlight` and `syncing`: a repeat
    /// looks its key up here, not through every entry waiting. A key stands
    /// once per board.
    private var keyed = KeyTable<PendingEntry>()

    private mutating func unindex(_ entries: [PendingEntry]) {
        guard keyed.count > 0 else { return }
        for e in entries { if let key = e.key { keyed.remove(key.hash) { $0 === e } } }
    }

    /// Whether `board` has an action in any batch or waiting for one.
    func holds(_ board: String) -> Bool {
        pending.contains { $0.board == board } || (inFlight?.entries.contains { $0.board == board } ?? false)
            || syncing.contains { $0.entries.contains { $0.board == board } }
    }

    // MARK: inputs

    /// A request accepted (or a no-op's answer) joins the next batch. True:
    /// seal now (nothing is being written and no regrouping holds it).
    mutating func enqueue(_ entry: PendingEntry) -> Bool {
        pending.append(entry)
        if let key = entry.key { keyed.insert(key.hash, entry) { $0.board == entry.board && $0.key == key } }
        return inFlight == nil && !regrouping
    }

    /// What sealing the pending requests means now.
    enum Sealed {
        /// Nothing to seal, or no-op answers that wait behind a batch still syncing.
        case none
        /// Hand this batch to the store.
        case commit(SealedBatch)
        /// Only no-op answers and nothing to confirm: answer them now.
        case answer(Batch)
    }

    /// Everything pending becomes one batch: one transaction, one sync.
    /// `build` makes its contents from the boards (the hub's).
    mutating func seal(build: (UInt64, [PendingEntry]) -> SealedBatch) -> Sealed {
        guard inFlight == nil, !pending.isEmpty else { return .none }
        // No-op answers alone behind a batch still syncing wait for it: on one
        // node this is known without building the batch each time one more arrives.
        if !syncing.isEmpty && !shared && !pending.contains(where: { $0.writes }) { return .none }
        let entries = pending
        let id = nextBatchID
        let batch = build(id, entries)
        let writes = !(batch.deletions.isEmpty && batch.puts.isEmpty && batch.checks.isEmpty && batch.keys.isEmpty)
        // Only no-op answers judged on changes not durable yet: they wait for the sync.
        if !writes && !syncing.isEmpty { return .none }
        pending = []
        nextBatchID += 1
        guard writes else {
            unindex(entries)
            return .answer((id, entries))
        }
        inFlight = (id, entries)
        return .commit(batch)
    }

    /// Batch `id` is written, not yet durable: it waits for its sync, and
    /// the next may be sealed. False for a batch not in flight.
    mutating func written(_ id: UInt64) -> Bool {
        guard let flight = inFlight, flight.id == id else { return false }
        inFlight = nil
        syncing.append(flight)
        return true
    }

    /// Batch `id` is durable: its entries, to apply and answer in order
    /// (nil for a batch this machine does not hold, or not the oldest).
    mutating func committed(_ id: UInt64) -> [PendingEntry]? {
        if let first = syncing.first, first.id == id {
            unindex(first.entries)
            return syncing.removeFirst().entries
        }
        if syncing.isEmpty, let flight = inFlight, flight.id == id {
            inFlight = nil
            unindex(flight.entries)
            return flight.entries
        }
        return nil
    }

    /// What a failed batch means.
    struct Failure {
        /// Every request that must now be refused: those written after the
        /// failed one (none may be answered as stored), those pending, and
        /// those waiting for a catch-up (their answer must not wait for a failing store).
        var refused: [PendingEntry]
        /// When to probe the store.
        var probeIn: Double
    }

    /// Batch `id` failed: writes are refused until a probe succeeds.
    mutating func failed(_ id: UInt64, reason: String, random: Double) -> Failure? {
        guard inFlight?.id == id || syncing.first?.id == id else { return nil }
        let refused = syncing.flatMap(\.entries) + (inFlight?.entries ?? []) + pending + awaitingCatchUp
        keyed.removeAll()
        inFlight = nil
        syncing = []
        pending = []
        awaitingCatchUp = []
        fault = reason
        backoff.reset()
        return Failure(refused: refused, probeIn: backoff.next(random: random))
    }

    /// What a batch another node refused means: nothing of it was written.
    struct Moved {
        /// Requests that cannot be asked again (no intent): refuse them.
        var unanswerable: [PendingEntry]
        /// Boards to catch up before the others are applied again.
        var catchUp: [String]
    }

    /// A shared store refused batch `id` (another node moved one of its
    /// boards first): its requests, and those pending behind it, wait for
    /// their boards' catch-up. Nil for a batch not in flight.
    mutating func moved(_ id: UInt64) -> Moved? {
        guard let flight = inFlight, flight.id == id else { return nil }
        inFlight = nil
        for e in flight.entries { e.refusals += 1 }
        let refused = flight.entries + pending
        pending = []
        unindex(refused)
        var out = Moved(unanswerable: [], catchUp: [])
        for e in refused {
            guard e.intent != nil else {
                out.unanswerable.append(e)
                continue
            }
            if !awaitingCatchUp.contains(where: { $0.board == e.board }) && !out.catchUp.contains(e.board) { out.catchUp.append(e.board) }
            awaitingCatchUp.append(e)
        }
        return out
    }

    /// A request on a board whose refused requests wait for its catch-up
    /// waits behind them: applied now, on the stale head, it would make
    /// another batch the store refuses. True when it was held.
    mutating func holdBehindCatchUp(_ board: String, _ entry: @autoclosure () -> PendingEntry) -> Bool {
        guard fault == nil, awaitingCatchUp.contains(where: { $0.board == board }) else { return false }
        awaitingCatchUp.append(entry())
        return true
    }

    /// `board` was caught up: its held requests, to apply again in the order
    /// they came. Until `regrouped`, what they enqueue waits to be sealed as
    /// one batch (sealed one by one, the first went alone and lost again to
    /// the node that had just won, while the rest queued behind it).
    mutating func caughtUp(_ board: String) -> [PendingEntry] {
        guard awaitingCatchUp.contains(where: { $0.board == board }) else { return [] }
        let mine = awaitingCatchUp.filter { $0.board == board }
        awaitingCatchUp.removeAll { $0.board == board }
        regrouping = true
        return mine
    }

    /// The caught-up requests are applied again: seal them together.
    mutating func regrouped() { regrouping = false }

    /// What a probe of a refusing store means.
    enum Probe: Equatable {
        /// No fault: nothing to do.
        case ignored
        /// The store accepts writes again.
        case recovered
        /// Still refusing: probe again in `in` seconds; `changed` when the reason is new.
        case stillRefusing(changed: Bool, in: Double)
    }

    mutating func probed(ok: Bool, reason: String, random: Double) -> Probe {
        guard fault != nil else { return .ignored }
        if ok {
            fault = nil
            return .recovered
        }
        let changed = reason != fault
        fault = reason
        return .stillRefusing(changed: changed, in: backoff.next(random: random))
    }

    /// Another node's update of `board` arrived. True: skip it for now (this
    /// node's writes to it wait for the store; the board is caught up once
    /// they are answered, `deferredCatchUps`).
    mutating func remoteUpdate(on board: String) -> Bool {
        guard holds(board) else { return false }
        remoteSkipped.insert(board)
        return true
    }

    /// The boards whose remote updates were skipped and that no write holds
    /// any longer: to catch up now, in name order.
    mutating func deferredCatchUps() -> [String] {
        let ready = remoteSkipped.sorted().filter { !holds($0) }
        remoteSkipped.subtract(ready)
        return ready
    }
}
