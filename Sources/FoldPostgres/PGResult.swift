import CLibPQ

/// Owns one PGresult and clears it. Rows are read in text format: every
/// value foldsync stores is text (JSON documents, names) or an integer.
final class PGResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var rows: Int { Int(PQntuples(handle)) }

    /// The value at `row`, `column`; nil for SQL NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        guard PQgetisnull(handle, Int32(row), Int32(column)) == 0 else { return nil }
        return String(cString: PQgetvalue(handle, Int32(row), Int32(column)))
    }

    func int(_ row: Int, _ column: Int) -> Int? { text(row, column).flatMap { Int($0) } }

    /// A text value's bytes (the stored JSON), without a detour through String.
    func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        let n = Int(PQgetlength(handle, Int32(row), Int32(column)))
        guard n > 0, let p = PQgetvalue(handle, Int32(row), Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
