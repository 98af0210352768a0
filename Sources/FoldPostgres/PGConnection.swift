import Glibc
import CLibPQ

/// Owns one libpq connection and finishes it. Every statement goes through
/// `query`, whose single checker turns a status into a `PGError`.
///
/// One thread at a time (libpq's rule for a connection).
final class PGConnection {
    let handle: OpaquePointer

    /// Connects with `uri`; `timeoutMs` bounds the connect, each statement and
    /// each wait for a lock, so a store failure is an answer, never a hang.
    init(uri: String, timeoutMs: Int) throws(PGError) {
        let seconds = String(max(1, (timeoutMs + 999) / 1000))
        // Earlier pairs are defaults: the URI (expanded from `dbname`) overrides them.
        let pairs: [(String, String)] = [
            ("connect_timeout", seconds), ("application_name", "foldsyncd"),
            ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
            ("tcp_user_timeout", String(timeoutMs)), ("dbname", uri),
        ]
        let keys = pairs.map { strdup($0.0) }, values = pairs.map { strdup($0.1) }
        defer { (keys + values).forEach { free($0) } }
        let k = keys.map { UnsafePointer<CChar>($0) } + [nil]
        let v = values.map { UnsafePointer<CChar>($0) } + [nil]
        guard let conn = PQconnectdbParams(k, v, 1) else { throw PGError(message: "out of memory", connectionLost: true) }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(conn))
            PQfinish(conn)
            throw PGError(message: "cannot connect: \(message)", connectionLost: true)
        }
        handle = conn
        // NOTICEs ("relation already exists, skipping") would go to stderr, past the logger.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        try query("SET statement_timeout = \(timeoutMs); SET lock_timeout = \(timeoutMs)")
    }

    deinit { PQfinish(handle) }

    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// The server process serving this connection (what `pg_stat_activity.pid` calls it).
    var backendPID: Int32 { PQbackendPID(handle) }

    /// Runs one statement (or several, without parameters). Parameters travel
    /// as text, out of band, so nothing is ever spliced into SQL.
    @discardableResult
    func query(_ sql: String, _ params: [String?] = []) throws(PGError) -> PGResult {
        let raw: OpaquePointer?
        if params.isEmpty {
            raw = PQexec(handle, sql)
        } else {
            let copies = params.map { $0.map { strdup($0) } ?? nil }
            defer { copies.forEach { free($0) } }
            let pointers = copies.map { $0.map { UnsafePointer<CChar>($0) } }
            raw = PQexecParams(handle, sql, Int32(params.count), nil, pointers, nil, nil, 0)
        }
        guard let raw else {
            throw PGError(message: Self.trimmed(PQerrorMessage(handle)), connectionLost: isBroken)
        }
        let result = PGResult(raw)
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            let state = PQresultErrorField(raw, fs_pq_diag_sqlstate()).map { String(cString: $0) }
            throw PGError(message: Self.trimmed(PQresultErrorMessage(raw)), sqlstate: state, connectionLost: isBroken)
        }
    }

    static func trimmed(_ p: UnsafePointer<CChar>?) -> String {
        guard let p else { return "unknown error" }
        var s = String(cString: p)
        while s.last == "\n" || s.last == " " { s.removeLast() }
        return s.split(separator: "\n").joined(separator: "; ")
    }
}
