import CSQLite

/// A SQLite result code as a value, so no one compares raw `CInt`s: the
/// primary codes get names; an extended code (such as `SQLITE_IOERR_FSYNC`)
/// keeps its full value, which `description` names.
struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    static let ok = SQLiteResultCode(rawValue: SQLITE_OK)
    static let error = SQLiteResultCode(rawValue: SQLITE_ERROR)
    static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    static let locked = SQLiteResultCode(rawValue: SQLITE_LOCKED)
    static let noMemory = SQLiteResultCode(rawValue: SQLITE_NOMEM)
    static let readOnly = SQLiteResultCode(rawValue: SQLITE_READONLY)
    static let ioError = SQLiteResultCode(rawValue: SQLITE_IOERR)
    static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    static let full = SQLiteResultCode(rawValue: SQLITE_FULL)
    static let cantOpen = SQLiteResultCode(rawValue: SQLITE_CANTOPEN)
    static let constraint = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT)
    static let tooBig = SQLiteResultCode(rawValue: SQLITE_TOOBIG)
    static let misuse = SQLiteResultCode(rawValue: SQLITE_MISUSE)
    static let range = SQLiteResultCode(rawValue: SQLITE_RANGE)
    static let row = SQLiteResultCode(rawValue: SQLITE_ROW)
    static let done = SQLiteResultCode(rawValue: SQLITE_DONE)

    /// OK, or a step's ROW or DONE: everything that is not a failure.
    var isSuccess: Bool { self == .ok || self == .row || self == .done }

    /// SQLite's own words for the code (`sqlite3_errstr`), with the number.
    var description: String { "\(String(cString: sqlite3_errstr(rawValue))), code \(rawValue)" }
}
