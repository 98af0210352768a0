import FoldConfig
import FoldCore
import FoldHub
import FoldPostgres
import FoldStore
import Glibc

/// Opens the engine the configuration names: PostgreSQL when `store` is
/// set, else the SQLite file at `db`.
enum StoreOpener {
    /// Why the store did not open, with the exit status it means: 2 for a
    /// database this binary must not touch (a newer schema), 1 otherwise.
    struct Failure: Error {
        var message: String
        var status: Int32
    }

    /// The store the daemon serves from.
    static func open(_ config: DaemonConfig) throws(Failure) -> any BoardStore & Sendable {
        try open(config.store.isEmpty ? config.db : config.store, timeoutMs: config.storeBusyMs, serving: true)
    }

    /// A store named by `location`: `postgresql://...` (or `postgres://`),
    /// else a SQLite file, as a path or `sqlite:PATH`. `mustExist`: a SQLite
    /// file that is not there is an error rather than a new empty store.
    /// `serving`: the daemon's own store, which reserves its SQLite WAL and
    /// syncs it apart from each commit (on the committer's sync thread).
    /// `holding` (implied by `serving`): a SQLite store is this process's
    /// alone while open, refused (status 2) when another holds it.
    /// PostgreSQL stores are shared on purpose and never held.
    static func open(_ location: String, timeoutMs: Int, mustExist: Bool = false, serving: Bool = false, holding: Bool = false) throws(Failure) -> any BoardStore & Sendable {
        guard StoreURI.isPostgres(location) else {
            let path = sqlitePath(location)
            if mustExist && access(path, F_OK) != 0 { throw Failure(message: "no SQLite file at \(path)", status: 1) }
            do throws(StoreError) {
                return try SQLiteStore(path: path, busyTimeoutMs: timeoutMs, reserveWAL: serving, syncApart: serving, hold: serving || holding)
            } catch {
                throw Failure(message: error.description, status: error.schemaTooNew || error.heldElsewhere ? 2 : 1)
            }
        }
        do throws(PostgresOpenError) {
            return try PostgresStore(uri: location, timeoutMs: timeoutMs)
        } catch {
            if case .schemaTooNew = error { throw Failure(message: error.description, status: 2) }
            throw Failure(message: error.description, status: 1)
        }
    }

    /// `sqlite:PATH` or `sqlite://PATH` is PATH; anything else is a path already.
    static func sqlitePath(_ location: String) -> String {
        for prefix in ["sqlite://", "sqlite:"] where location.hasPrefix(prefix) { return String(location.dropFirst(prefix.count)) }
        return location
    }
}
