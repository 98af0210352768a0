import FoldSystem
import FoldCore
import FoldTransport
import Foundation
import FoldHub

/// The one thread that writes the store after start-up, so the event loop
/// never waits on the disk (history reads have a thread of their own,
/// `Reader`). The service thread submits; results come back through
/// `report`, which posts to the hub and wakes lws.
final class Committer: Sendable {
    private enum Job: Sendable {
        case commit(SealedBatch)
        case probe
        case stop
    }

    let store: any BoardStore & Sendable
    private let worker = WorkerThread<Job>(name: "foldsync-committer")
    private let reaper = Reaper(name: "foldsync-reaper")
    /// A committed batch, both forms, on its way to the reaper.
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
    }

    /// Milliseconds since 1970, UTC: the commit time every history record carries.
    static func wallClockMs() -> Int { Int((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Idle for as long as the store asks (`idleEvery`), the store may let go of a lock it keeps for a retry.
    func start() {
        reaper.start()
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
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                report(.committed(batch: sealed.id, seconds: seconds))
                // Freeing a batch (every board state it saw, every record) is for idle time.
                reaper.drop(Garbage(sealed: sealed, batch: batch))
            } catch {
                report(error.moved ? .moved(batch: sealed.id, reason: error.description)
                                   : .failed(batch: sealed.id, reason: error.description))
                if error.moved && !error.caughtUp.isEmpty { caughtUp(error.caughtUp) }
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
            // A clean stop leaves the store whole on its own (SQLite: no -wal to copy along).
            store.close()
            return false
        }
    }
}
