import CSQLite
import FoldCore
import FoldSystem
import Dispatch
import FoundationEssentials
import Glibc

/// `foldsyncd backup` and `restore` for the SQLite engine.
///
/// A backup is `VACUUM INTO`: one read transaction on its own connection, so
/// the copy is the store as of one commit while the daemon goes on writing
/// (WAL readers and the writer do not wait for each other). A restore needs
/// the daemon stopped, and gives every board a new epoch: clients that come
/// back cannot resume past the restore and resynchronise from a snapshot.
public enum SQLiteBackup {
    /// What a backup or restore did, for its one line of output.
    public struct Report: Sendable {
        public var boards: Int
        /// The highest rev of any board in the copy.
        public var maxRev: Int
        public var bytes: Int
        public var seconds: Double
        /// Where a restore kept the store it replaced; nil when there was none.
        public var previous: String? = nil
    }

    /// Copies the store at `source` to `out` (replaced atomically when it exists).
    public static func backup(from source: String, to out: String, busyTimeoutMs: Int = 10_000) throws(StoreError) -> Report {
        let started = DispatchTime.now().uptimeNanoseconds
        guard !sameFile(source, out) else { throw StoreError("\(out) is the store itself; back it up to another file") }
        let db = try SQLiteDatabase(path: source, create: false)
        try db.setBusyTimeout(milliseconds: busyTimeoutMs)
        let found = try SQLiteSchema.storedVersion(db)
        guard found > 0 else { throw StoreError("\(source) holds no foldsync store") }
        let partial = out + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do throws(StoreError) {
            try db.execute("VACUUM INTO \(quoted(partial))")
            db.close()
            var report = try verify(partial)
            try durablyRename(partial, to: out)
            report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            return report
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    /// Replaces the store at `db` with the copy `input`, every board at a
    /// new epoch from `newEpoch`; the old file is kept as `db.before-restore`.
    /// Refuses while another process (a running daemon) has `db` open.
    public static func restore(from input: String, to db: String, newEpoch: () -> String) throws(StoreError) -> Report {
        let started = DispatchTime.now().uptimeNanoseconds
        guard !sameFile(input, db) else { throw StoreError("\(input) is the store itself; restore from a copy") }
        let source = try SQLiteDatabase(path: input, create: false)
        let found = try SQLiteSchema.storedVersion(source)
        guard found > 0 else { throw StoreError("\(input) holds no foldsync store") }
        guard found <= SQLiteSchema.version else {
            throw StoreError("\(input) was written by a newer foldsyncd (schema version \(found); this one knows \(SQLiteSchema.version))", schemaTooNew: true)
        }
        _ = try verify(input)
        let fm = FileManager.default
        // Held until the new file is in place: a daemon must neither be
        // serving the old file nor start on it meanwhile.
        let hold = fm.fileExists(atPath: db) ? try SQLiteStoreHold(file: db, shown: db) : nil
        defer { hold?.release() }
        if hold != nil { try takeOver(db) }
        let staging = db + ".restoring"
        try? fm.removeItem(atPath: staging)
        do throws(StoreError) {
            try source.execute("VACUUM INTO \(quoted(staging))")
            source.close()
            // Upgraded to this release's schema, new epochs, then closed whole (no -wal beside it).
            let store = try SQLiteStore(path: staging)
            try store.renewEpochs(newEpoch)
            store.close()
            var report = try verify(staging)
            if fm.fileExists(atPath: db) {
                let kept = db + ".before-restore"
                try? fm.removeItem(atPath: kept)
                do throws(SystemError) {
                    try systemCall("rename \(db) to \(kept)") { rename(db, kept) }
                } catch {
                    throw StoreError("cannot move \(db) aside: \(error)")
                }
                report.previous = kept
            }
            try durablyRename(staging, to: db)
            report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            return report
        } catch {
            try? fm.removeItem(atPath: staging)
            throw error
        }
    }

    /// Fails unless no other connection has `path` open: leaving WAL mode
    /// needs the file to itself. It also folds any WAL left by a crash into the file.
    static func takeOver(_ path: String) throws(StoreError) {
        let db = try SQLiteDatabase(path: path, create: false)
        do throws(StoreError) {
            try db.execute("PRAGMA journal_mode=DELETE")
        } catch {
            throw StoreError("\(path) is in use (is foldsyncd running? stop it before a restore): \(error.description)")
        }
        db.close()
    }

    /// Opens a copy, checks it whole, and counts what it holds.
    static func verify(_ path: String) throws(StoreError) -> Report {
        let db = try SQLiteDatabase(path: path, create: false)
        defer { db.close() }
        let check = try db.prepare("PRAGMA integrity_check")
        guard try check.step(), check.text(0) == "ok" else { throw StoreError("\(path) failed its integrity check: \(check.text(0))") }
        check.reset()
        let count = try db.prepare("SELECT count(*), coalesce(max(rev), 0) FROM boards")
        guard try count.step() else { throw StoreError("\(path) has no boards table") }
        let report = Report(boards: count.int(0), maxRev: count.int(1), bytes: fileSize(path), seconds: 0)
        count.reset()
        return report
    }

    /// True when both paths name one existing file (links and `..` included).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// A SQL string literal.
    static func quoted(_ s: String) -> String { "'" + s.replacing("'", with: "''") + "'" }

    /// fsync the file, rename it over `target`, fsync the directory: the
    /// new file is there whole after a crash, or the old one is.
    static func durablyRename(_ from: String, to target: String) throws(StoreError) {
        do {
            let fd = try systemCall("open \(from)") { open(from, O_RDONLY) }
            defer { close(fd) }
            try systemCall("fsync \(from)") { fsync(fd) }
            try systemCall("rename \(from) to \(target)") { rename(from, target) }
        } catch {
            throw StoreError("cannot put the copy in place: \(error)")
        }
        let dir = parentDirectory(of: target)
        let dfd = open(dir.isEmpty ? "." : dir, O_RDONLY)
        if dfd >= 0 { _ = fsync(dfd); close(dfd) }
    }
}

extension SQLiteStore {
    /// Gives every board a new epoch, in one transaction (after a restore).
    public func renewEpochs(_ newEpoch: () -> String) throws(StoreError) {
        var batch = CommitBatch(historyLimit: .max)
        batch.boards = try loadBoards().map { b in
            var b = b
            b.epoch = newEpoch()
            return b
        }
        try commit(batch)
    }
}
