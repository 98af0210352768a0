import FoldSystem
import FoldCore
import FoldTransport
import Dispatch
import FoundationEssentials
import FoldHub

/// The one thread that writes the store after start-up, so the event loop
/// never waits on the disk (history reads have a thread of their own,
/// `Reader`). The service thread submits; results come back through
/// `report`, which posts to the hub and wakes lws.
///
/// A store that syncs apart (`BoardStore.syncsApart`: SQLite's WAL) has a
/// second thread, `SyncThread`: the committer writes a batch, reports it
/// `written` (the hub may then seal the next one) and hands it over; the sync
/// thread syncs and reports it `committed`. Every outcome of a batch written
/// after that goes through the sync thread too, so the hub hears them in the
/// order the batches were written.
final class Committer: Service, Sendable {
    private enum Job: Sendable {
        case commit(SealedBatch)
        case probe
        case stop
    }

    let name = "foldsync-committer"
    let store: any BoardStore & Sendable
    private let worker = WorkerThread<Job>(name: "foldsync-committer")
    /// nil unless the store syncs apart; a service of its own, started
    /// before this one and stopped after it.
    private let syncer: SyncThread?
    /// Started before this one and stopped after the store is closed.
    private let reaper: Reaper
    private let report: @Sendable (CommitOutcome) -> Void
    /// A shared store's refusal came with the boards as they stand: handed on right after the outcome.
    private let caughtUp: @Sendable ([StoreUpdate]) -> Void

    init(store: any BoardStore & Sendable, syncer: SyncThread?, reaper: Reaper,
         report: @escaping @Sendable (CommitOutcome) -> Void,
         caughtUp: @escaping @Sendable ([StoreUpdate]) -> Void = { _ in }) {
        precondition((syncer != nil) == store.syncsApart, "a store that syncs apart has a sync thread, and only such a store")
        self.store = store
        self.syncer = syncer
        self.reaper = reaper
        self.report = report
        self.caughtUp = caughtUp
    }

    /// Milliseconds since 1970, UTC: the commit time every history record carries.
    static func wallClockMs() -> Int { Int((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Idle for as long as the store asks (`idleEvery`), the store may let go of a lock it keeps for a retry.
    func start() {
        worker.start(idleEvery: store.idleEvery, idle: { [store] in store.idle() }) { [self] job in run(job) }
    }

    /// Any thread.
    func submit(_ batch: SealedBatch) { worker.enqueue(.commit(batch)) }
    func probe() { worker.enqueue(.probe) }

    /// Finishes what was submitted, waits until every batch written is
    /// synced and reported, closes the store, then ends the thread.
    func stop(deadline: ContinuousClock.Instant) -> Bool {
        worker.finish(with: .stop, until: deadline)
    }

    private func run(_ job: Job) -> Bool {
        switch job {
        case .commit(let sealed):
            let started = DispatchTime.now().uptimeNanoseconds
            do {
                let batch = sealed.encoded(now: Self.wallClockMs())
                try store.commit(batch)
                if let syncer {
                    report(.written(batch: sealed.id))
                    syncer.enqueue(.sync(batch: sealed.id, started: started, garbage: CommittedBatch(sealed: sealed, batch: batch)))
                    return true
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                report(.committed(batch: sealed.id, seconds: seconds))
                // Freeing a batch (every board state it saw, every record) is for idle time.
                reaper.drop(CommittedBatch(sealed: sealed, batch: batch))
            } catch {
                let outcome: CommitOutcome = error.moved ? .moved(batch: sealed.id, reason: error.description)
                                                         : .failed(batch: sealed.id, reason: error.description)
                let updates = error.moved ? error.caughtUp : []
                if let syncer { syncer.enqueue(.report(outcome, caughtUp: updates)); return true }
                report(outcome)
                if !updates.isEmpty { caughtUp(updates) }
            }
            return true
        case .probe:
            do {
                try store.probe()
                report(.probed(ok: true, reason: ""))
            } catch {
                report(.probed(ok: false, reason: error.description))
            }
            return true
        case .stop:
            // Every batch written is synced and reported before the store closes.
            syncer?.drain()
            // A clean stop leaves the store whole on its own (SQLite: no -wal to copy along).
            store.close()
            return false
        }
    }
}

/// A committed batch, both forms, on its way to the reaper (or, when the
/// store syncs apart, let go of by the sync thread after its report).
struct CommittedBatch: Sendable {
    let sealed: SealedBatch
    let batch: CommitBatch
}
