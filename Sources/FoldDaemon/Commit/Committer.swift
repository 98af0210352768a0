import FoldSystem
import FoldCore
import FoldTransport
import Foundation
import FoldHub

/// The one thread that writes the store after start-up, so the event loop
/// never waits on the disk (history reads have a thread of their own,
/// `Reader`). The service thread submits; results come back through
/// `report`, which posts to the hub and wakes lws.
///
/// A store that syncs apart (`BoardStore.syncsApart`: SQLite's WAL) has a
/// second thread, `foldsync-sync`: the committer writes a batch, reports it
/// `written` (the hub may then seal the next one) and hands it over; the sync
/// thread syncs and reports it `committed`. Every outcome of a batch written
/// after that goes through the sync thread too, so the hub hears them in the
/// order the batches were written.
final class Committer: Sendable {
    private enum Job: Sendable {
        case commit(SealedBatch)
        case probe
        case stop
    }

    let store: any BoardStore & Sendable
    private let worker = WorkerThread<Job>(name: "foldsync-committer")
    private enum SyncJob: Sendable {
        /// Sync, then report the batch committed; `garbage` is let go of here, after the report.
        case sync(batch: UInt64, started: UInt64, garbage: Garbage)
        /// An outcome to report in its turn (a failed write behind a batch still syncing).
        case report(CommitOutcome, caughtUp: [StoreUpdate])
        case stop
    }
    /// nil unless the store syncs apart.
    private let syncer: WorkerThread<SyncJob>?
    private let reaper = Reaper(name: "foldsync-reaper")
    /// A committed batch, both forms, on its way to the reaper (or, when the
    /// store syncs apart, let go of by the sync thread after its report).
    private struct Garbage: Sendable {
        let sealed: SealedBatch
        let batch: CommitBatch
    }
    private let report: @Sendable (CommitOutcome) -> Void
    /// A shared store's refusal came with the boards as they stand: handed on right after the outcome.
    private let caughtUp: @Sendable ([StoreUpdate]) -> Void

    init(store: any BoardStore & Sendable, report: @escaping @Sendable (CommitOutcome) -> Void,
         caughtUp: @escaping @Sendable ([StoreUpdate]) -> Void = { _ in }) {
        self.store = store
        self.report = report
        self.caughtUp = caughtUp
        syncer = store.syncsApart ? WorkerThread(name: "foldsync-sync") : nil
    }

    /// Milliseconds since 1970, UTC: the commit time every history record carries.
    static func wallClockMs() -> Int { Int((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Idle for as long as the store asks (`idleEvery`), the store may let go of a lock it keeps for a retry.
    func start() {
        reaper.start()
        syncer?.start { [self] job in sync(job) }
        worker.start(idleEvery: store.idleEvery, idle: { [store] in store.idle() }) { [self] job in run(job) }
    }

    /// Any thread.
    func submit(_ batch: SealedBatch) { worker.enqueue(.commit(batch)) }
    func probe() { worker.enqueue(.probe) }

    /// Finishes what was submitted, closes the store, then ends the thread; waits at most `timeout`.
    func stop(timeout: Double) {
        worker.finish(with: .stop, timeout: timeout)
        reaper.stop()
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
                    syncer.enqueue(.sync(batch: sealed.id, started: started, garbage: Garbage(sealed: sealed, batch: batch)))
                    return true
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                report(.committed(batch: sealed.id, seconds: seconds))
                // Freeing a batch (every board state it saw, every record) is for idle time.
                reaper.drop(Garbage(sealed: sealed, batch: batch))
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
            syncer?.finish(with: .stop, timeout: 10)
            // A clean stop leaves the store whole on its own (SQLite: no -wal to copy along).
            store.close()
            return false
        }
    }

    /// The sync thread's jobs.
    private func sync(_ job: SyncJob) -> Bool {
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
        case .stop:
            return false
        }
    }
}
