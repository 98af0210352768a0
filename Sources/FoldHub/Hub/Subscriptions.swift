/// Who watches which board: the one record of the relation. Both directions
/// are kept (fan-out reads a board's watchers, a closing connection its
/// boards), and only these methods change them, so they cannot disagree.
/// A name may be watched while its board is deleted.
struct Subscriptions {
    private var byBoard: [String: Set<UInt64>] = [:]
    private var byConnection: [UInt64: Set<String>] = [:]
    /// Each board's watchers as an array, kept until they change: every
    /// change's fan-out hands the same array on (no copy per change), and the
    /// transport knows it by its storage (`WebServer.fanOut`).
    private var lists: [String: [UInt64]] = [:]

    func watchers(of board: String) -> Set<UInt64> { byBoard[board] ?? [] }

    /// The watchers of `board` for a fan-out; the same array until they change.
    mutating func fanOutList(of board: String) -> [UInt64] {
        if let l = lists[board] { return l }
        guard let set = byBoard[board] else { return [] }
        let l = Array(set)
        lists[board] = l
        return l
    }
    func boards(of id: UInt64) -> Set<String> { byConnection[id] ?? [] }
    func contains(_ id: UInt64, _ board: String) -> Bool { byConnection[id]?.contains(board) ?? false }
    /// Subscriptions over all connections.
    var count: Int { byConnection.values.reduce(0) { $0 + $1.count } }

    mutating func insert(_ id: UInt64, _ board: String) {
        if byBoard[board, default: []].insert(id).inserted { lists[board] = nil }
        byConnection[id, default: []].insert(board)
    }

    mutating func remove(_ id: UInt64, _ board: String) {
        if byBoard[board]?.remove(id) != nil { lists[board] = nil }
        if byBoard[board]?.isEmpty == true { byBoard[board] = nil }
        byConnection[id]?.remove(board)
        if byConnection[id]?.isEmpty == true { byConnection[id] = nil }
    }

    /// Forgets a connection; returns the boards it watched.
    mutating func removeAll(_ id: UInt64) -> Set<String> {
        let boards = byConnection.removeValue(forKey: id) ?? []
        for b in boards {
            byBoard[b]?.remove(id)
            lists[b] = nil
            if byBoard[b]?.isEmpty == true { byBoard[b] = nil }
        }
        return boards
    }
}
