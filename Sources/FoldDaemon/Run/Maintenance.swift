import FoldConfig
import FoldCore
import FoldHub
import FoldStore

/// Runs `backup` and `restore`; returns the exit status (0 done, 1 failed,
/// 2 refused: a newer schema, a store a running daemon holds (restore), or
/// PostgreSQL, whose tools do this).
enum Maintenance {
    static func run(_ c: MaintenanceCommand) -> Int32 {
        func fail(_ message: String, _ status: Int32 = 1) -> Int32 {
            StandardError.write("foldsyncd: \(message)\n")
            return status
        }
        if !c.store.isEmpty {
            // foldsyncd runs nothing it does not own: PostgreSQL's own tools do this (docs/OPERATIONS.md).
            let uri = StoreURI.redacted(c.store)
            return fail(c.kind == .backup
                ? "a PostgreSQL store is backed up with pg_dump, not foldsyncd: pg_dump --format=custom --table='foldsync_*' --file=\(c.file) '\(uri)' (see docs/OPERATIONS.md)"
                : "a PostgreSQL store is restored with pg_restore, then given new epochs (see docs/OPERATIONS.md): pg_restore --clean --dbname='\(uri)' \(c.file)", 2)
        }
        do throws(StoreError) {
            switch c.kind {
            case .backup:
                let r = try SQLiteBackup.backup(from: c.db, to: c.file)
                print("backed up \(c.db) to \(c.file): \(boards(r.boards)), highest rev \(r.maxRev), \(r.bytes) bytes in \(milliseconds(r.seconds)) ms")
            case .restore:
                let r = try SQLiteBackup.restore(from: c.file, to: c.db, newEpoch: Hub.newEpoch)
                print("restored \(c.file) into \(c.db): \(boards(r.boards)), each at a new epoch (clients resynchronise)"
                      + (r.previous.map { "; the previous file is \($0)" } ?? ""))
            }
            return 0
        } catch {
            return fail("\(c.kind.rawValue) failed: \(error.description)", error.schemaTooNew || error.heldElsewhere ? 2 : 1)
        }
    }

    static func boards(_ n: Int) -> String { n == 1 ? "1 board" : "\(n) boards" }

    static func milliseconds(_ s: Double) -> String { String(Int((s * 1000).rounded())) }
}
