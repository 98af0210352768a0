import FoldCore
import FoldSystem
import Glibc

/// The WAL's `fdatasync`, apart from the commit that wrote it.
///
/// The writer runs at `synchronous=NORMAL`: its COMMIT writes the WAL's
/// frames and returns without syncing, and this syncs them from another
/// thread, through a descriptor of its own (`fdatasync` flushes the file,
/// whichever descriptor names it). So the committer writes the next batch
/// while the last one syncs, and nothing is acknowledged before the sync
/// that covers it returned. SQLite's checkpoints still sync the WAL before
/// copying it, and frames from an older WAL generation fail their salt.
///
/// After one failed sync the kernel may have dropped the pages it could not
/// write and a later sync can succeed without them, so the store refuses
/// every later commit and sync: only a restart, which reads the file back,
/// says what it holds.
final class SQLiteWALSync: Sendable {
    private let fd: Int32
    private struct State {
        /// Why the store refuses writes for good (nil while syncs succeed).
        var failure: String?
        var closed = false
    }
    /// Held across the `fdatasync`, so a close never lands in the middle of one.
    private let state = Locked(State())

    /// Opens the WAL at `wal` (as SQLite names it), which must exist, and
    /// syncs its directory once, so that the WAL's own name is durable
    /// before anything relies on it.
    init(wal: String) throws(StoreError) {
        do {
            fd = try systemCall("open \(wal)") { open(wal, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw StoreError("cannot open \(wal) to sync it: \(error)")
        }
        let parent = parentDirectory(of: wal)
        let dir = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            Glibc.close(dir)
        }
    }

    deinit { close() }

    /// Makes every frame written so far durable. Any one thread.
    func sync() throws(StoreError) {
        let failure = state.withLock { s -> String? in
            if let failure = s.failure { return failure }
            // Closed, its number may name another file by now: syncing that would prove nothing.
            var why = "the WAL's descriptor is closed"
            if !s.closed {
                do throws(SystemError) {
                    try systemCall("fdatasync") { fdatasync(fd) }
                    return nil
                } catch {
                    why = error.description
                }
            }
            s.failure = "fdatasync of the WAL failed (\(why)): writes may be lost; restart foldsyncd to read back what the file holds"
            return s.failure
        }
        if let failure { throw StoreError(failure) }
    }

    /// Throws once a sync failed.
    func check() throws(StoreError) {
        if let failure = state.withLock({ $0.failure }) { throw StoreError(failure) }
    }

    /// Only after the last `sync` returned.
    func close() {
        state.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            Glibc.close(fd)
        }
    }
}
