import FoldCore

/// A libpq failure: the server's message, its SQLSTATE when it sent one, and
/// whether the connection itself is gone (then the outcome of a statement in
/// flight is unknown until it is read back).
struct PGError: Error, CustomStringConvertible {
    var message: String
    var sqlstate: String?
    var connectionLost: Bool

    var description: String {
        (sqlstate.map { "\(message) (SQLSTATE \($0))" } ?? message) + (connectionLost ? " [connection lost]" : "")
    }

    /// The form the `BoardStore` protocol speaks.
    var storeError: StoreError { StoreError("postgresql: \(description)", moved: sqlstate == PostgresBatch.conflictState) }
}
