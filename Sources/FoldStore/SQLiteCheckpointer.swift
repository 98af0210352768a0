import FoldSystem
import CSQLite
import Dispatch
import FoldCore

/// Moves WAL checkpoints off the commit path.
///
/// SQLite checkpoints by default inside the COMMIT that takes the WAL past
/// 1,000 pages: that commit then also copies pages into the database file and
/// fsyncs it, and every change waiting behind it (and its subscribers) waits
/// too. Measured at 1,000 subscribers and 500 changes/s, those commits were
/// the 100–200 ms spikes of the run. Here the writer's WAL hook only counts
/// (registering it turns SQLite's own auto-checkpoint off) and wakes this
/// thread, which checkpoints PASSIVE on its own connection: it never waits
/// for the writer nor blocks it, and the next commit after a complete
/// checkpoint starts the WAL from the beginning again.
///
/// A `Service` whose life is the store's, not the daemon's: the store's open
/// starts it and its close stops it (`backup` and `migrate-store` open
/// stores with no daemon around them).
final class SQLiteCheckpointer: Service, @unchecked Sendable {
    /// WAL pages after which a checkpoint is started (SQLite's default threshold).
    static let pages: Int32 = 1_000
    private let path: String
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    /// Set once, by `stop`, read by the thread after each wake-up.
    private let stopping = Locked(false)
    private var started = false

    let name = "foldsync-checkpoint"

    init(path: String) { self.path = path }

    /// Installs the hook on the writer's connection; `start` then starts the thread.
    func attach(to writer: OpaquePointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(writer, { context, _, _, pages in
            if pages >= SQLiteCheckpointer.pages, let context {
                Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().wake.signal()
            }
            return SQLITE_OK
        }, me)
    }

    func start() {
        started = true
        SystemThread.start(name: name) { [self] in run() }
    }

    /// Ends the thread (after a checkpoint in progress) and waits for it until `deadline`.
    func stop(deadline: ContinuousClock.Instant) -> Bool {
        guard started else { return true }
        started = false
        stopping.withLock { $0 = true }
        wake.signal()
        return done.wait(until: deadline)
    }

    private func run() {
        checkpointUntilStopped()
        // After the connection closed: the store closes last, as SQLite then removes the WAL.
        done.signal()
    }

    private func checkpointUntilStopped() {
        // Its own connection: a checkpoint on the writer's would run on the committer thread.
        guard let db = try? SQLiteDatabase(path: path) else { return }
        sqlite3_busy_timeout(db.handle, 1_000)
        // A fresh connection has not opened the WAL until it reads the file:
        // without this the checkpoint finds no WAL and copies nothing.
        guard (try? db.execute("PRAGMA journal_mode=WAL")) != nil else { return }
        while true {
            wake.wait()
            if stopping.withLock({ $0 }) { return }
            // Coalesce the wake-ups of commits that happened meanwhile.
            while wake.wait(timeout: .now()) == .success {}
            // PASSIVE copies what no reader still needs and never waits for a lock;
            // what it leaves is copied next time.
            _ = sqlite3_wal_checkpoint_v2(db.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }
}
