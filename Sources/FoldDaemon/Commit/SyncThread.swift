import FoldCore
import FoldHub
import FoldSystem
import Dispatch

/// `foldsync-sync`, for a store that syncs apart (SQLite's WAL): syncs what
/// the committer wrote and reports each batch `committed`, and reports every
/// later outcome in its turn, so the hub hears them in the order the batches
/// were written. The committer hands over; answers go through `report`.
final class SyncThread: Service, Sendable {
    enum Job: Sendable {
        /// Sync, then report the batch committed; `garbage` is let go of here, after the report.
        case sync(batch: UInt64, started: UInt64, garbage: CommittedBatch)
        /// An outcome to report in its turn (a failed write behind a batch still syncing).
        case report(CommitOutcome, caughtUp: [StoreUpdate])
        /// Everything before it is done: signalled.
        case drained(DispatchSemaphore)
        case stop
    }

    let name = "foldsync-sync"
    private let store: any BoardStore & Sendable
    private let worker = WorkerThread<Job>(name: "foldsync-sync")
    private let report: @Sendable (CommitOutcome) -> Void
    private let caughtUp: @Sendable ([StoreUpdate]) -> Void

    init(store: any BoardStore & Sendable, report: @escaping @Sendable (CommitOutcome) -> Void,
         caughtUp: @escaping @Sendable ([StoreUpdate]) -> Void) {
        self.store = store
        self.report = report
        self.caughtUp = caughtUp
    }

    func start() { worker.start { [self] job in run(job) } }

    /// The committer's thread.
    func enqueue(_ job: Job) { worker.enqueue(job) }

    /// The committer's thread, before it closes the store: returns once
    /// every batch handed over is synced and reported (at most 10 s: a disk
    /// that hangs longer leaves the rest unreported, as a crash would).
    func drain() {
        let done = DispatchSemaphore(value: 0)
        worker.enqueue(.drained(done))
        _ = done.wait(timeout: .now() + 10)
    }

    func stop(deadline: ContinuousClock.Instant) -> Bool {
        worker.finish(with: .stop, until: deadline)
    }

    private func run(_ job: Job) -> Bool {
        switch job {
        case .sync(let id, let started, let garbage):
            do {
                try store.sync()
                report(.committed(batch: id, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9))
            } catch {
                report(.failed(batch: id, reason: error.description))
            }
            _ = consume garbage
            return true
        case .report(let outcome, let updates):
            report(outcome)
            if !updates.isEmpty { caughtUp(updates) }
            return true
        case .drained(let done):
            done.signal()
            return true
        case .stop:
            return false
        }
    }
}
