import FoldCore
import Synchronization

/// A connection that comes back: the open one, or a new one when the last
/// broke. Counts the connections made after the first (the reconnects
/// `/metrics` shows); `prepare` runs on each new connection (`LISTEN`).
///
/// One thread at a time, except `reconnects`, which any thread may read.
final class PGLink {
    let uri: String
    let timeoutMs: Int
    private let prepare: (PGConnection) throws(PGError) -> Void
    private var live: PGConnection?
    private let connects = Atomic<Int>(0)

    init(uri: String, timeoutMs: Int, adopting first: PGConnection? = nil,
         prepare: @escaping (PGConnection) throws(PGError) -> Void = { _ throws(PGError) in }) {
        self.uri = uri
        self.timeoutMs = timeoutMs
        self.prepare = prepare
        live = first
        connects.store(first == nil ? 0 : 1, ordering: .relaxed)
    }

    /// Connections made after the first.
    var reconnects: Int { max(0, connects.load(ordering: .relaxed) - 1) }

    func connection() throws(PGError) -> PGConnection {
        if let c = live, !c.isBroken { return c }
        live = nil
        let c = try PGConnection(uri: uri, timeoutMs: timeoutMs)
        connects.add(1, ordering: .relaxed)
        try prepare(c)
        live = c
        return c
    }

    /// Forgets the connection (it broke, or its state is unknown).
    func drop() { live = nil }

    /// Runs `body` on the connection; a failure that lost the connection drops it.
    func using<T>(_ body: (PGConnection) throws(PGError) -> T) throws(StoreError) -> T {
        do throws(PGError) {
            return try body(try connection())
        } catch {
            if error.connectionLost { drop() }
            throw error.storeError
        }
    }
}
