import FoldCore
import FoldHub
import FoldPostgres
import FoldStore

/// Opens the engine the configuration names: PostgreSQL when `store` is
/// set, else the SQLite file at `db`.
enum StoreOpener {
    /// Why the store did not open, with the exit status it means: 2 for a
    /// database this binary must not touch (a newer schema), 1 otherwise.
    struct Failure: Error {
        var message: String
        var status: Int32
    }

    /// The store as the log shows it (no password).
    static func describe(_ config: DaemonConfig) -> String {
        config.store.isEmpty ? config.db : StoreURI.redacted(config.store)
    }

    static func open(_ config: DaemonConfig) throws(Failure) -> any BoardStore & Sendable {
        if config.store.isEmpty {
            do throws(StoreError) {
                return try SQLiteStore(path: config.db, busyTimeoutMs: config.storeBusyMs)
            } catch {
                throw Failure(message: error.description, status: error.schemaTooNew ? 2 : 1)
            }
        }
        do throws(PostgresOpenError) {
            return try PostgresStore(uri: config.store, timeoutMs: config.storeBusyMs)
        } catch {
            if case .schemaTooNew = error { throw Failure(message: error.description, status: 2) }
            throw Failure(message: error.description, status: 1)
        }
    }
}
