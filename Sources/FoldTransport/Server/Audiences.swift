/// The connections behind the id lists that fan-outs name, resolved once per
/// list instead of one dictionary lookup per subscriber of every change.
///
/// The hub hands a board's same watcher array to every change's fan-out
/// until the watchers change (`Subscriptions.fanOutList`), so the array's
/// storage names the audience. Each entry keeps its array, so that storage
/// can be neither freed nor changed in place (a change copies it first):
/// the same base address and count mean the same ids. Entries hold their
/// connections unmanaged and are all dropped whenever a connection goes
/// (`WebServer.forget`), so none outlives its connection.
/// Service thread only.
struct Audiences<Member: AnyObject> {
    private struct Entry {
        let ids: [UInt64]
        let members: [Unmanaged<Member>]
    }

    /// Audiences remembered at once (boards changing in turn); the oldest goes first.
    static var capacity: Int { 32 }
    private var entries: [Entry] = []
    private var next = 0

    /// The members behind `ids`, resolved by `resolve` the first time this array is seen.
    mutating func members(for ids: [UInt64], resolve: (UInt64) -> Member?) -> [Unmanaged<Member>] {
        let key = ids.withUnsafeBufferPointer { $0.baseAddress }
        for e in entries where e.ids.count == ids.count && e.ids.withUnsafeBufferPointer({ $0.baseAddress }) == key {
            return e.members
        }
        let resolved = ids.compactMap { resolve($0).map(Unmanaged.passUnretained) }
        let entry = Entry(ids: ids, members: resolved)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % Self.capacity
        }
        return resolved
    }

    /// Forgets every audience (a member went).
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        next = 0
    }
}
