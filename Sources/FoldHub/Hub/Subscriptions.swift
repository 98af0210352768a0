/// Who watches which board: the one record of the relation. Both directions
/// are kept (fan-out reads a board's watchers, a closing connection its
/// boards), and only these methods change them, so they cannot disagree.
/// A name may be watched while its board is deleted.
struct Subscriptions {
    /// A connection's boards: almost always one, held without a set of its
    /// own (a set is 96 bytes a connection, 1 MB at 10,000 viewers).
    private enum Watched {
        case one(String)
        case many(Set<String>)

        var set: Set<String> {
            switch self {
            case .one(let b): [b]
            case .many(let s): s
            }
        }

        var count: Int {
            switch self {
            case .one: 1
            case .many(let s): s.count
            }
        }

        func contains(_ board: String) -> Bool {
            switch self {
            case .one(let b): b == board
            case .many(let s): s.contains(board)
            }
        }

        /// Adds `board` in place: the caller holds the only reference to the
        /// set (`insert` takes it out of the dictionary first), so it is not copied.
        mutating func add(_ board: String) {
            switch self {
            case .one(let b):
                if b != board { self = .many([b, board]) }
            case .many(var s):
                self = .one(board)
                s.insert(board)
                self = .many(s)
            }
        }

        /// Removes `board` in place; false when nothing is left.
        mutating func remove(_ board: String) -> Bool {
            switch self {
            case .one(let b): return b != board
            case .many(var s):
                self = .one(board)
                s.remove(board)
                if s.count > 1 { self = .many(s) } else if let last = s.first { self = .one(last) } else { return false }
                return true
            }
        }
    }

    private var byBoard: [String: Set<UInt64>] = [:]
    private var byConnection: [UInt64: Watched] = [:]
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
    func boards(of id: UInt64) -> Set<String> { byConnection[id]?.set ?? [] }
    func count(of id: UInt64) -> Int { byConnection[id]?.count ?? 0 }
    func contains(_ id: UInt64, _ board: String) -> Bool { byConnection[id]?.contains(board) ?? false }
    /// Subscriptions over all connections.
    var count: Int { byConnection.values.reduce(0) { $0 + $1.count } }

    mutating func insert(_ id: UInt64, _ board: String) {
        if byBoard[board, default: []].insert(id).inserted { lists[board] = nil }
        if var w = byConnection.removeValue(forKey: id) {
            w.add(board)
            byConnection[id] = w
        } else {
            byConnection[id] = .one(board)
        }
    }

    mutating func remove(_ id: UInt64, _ board: String) {
        if byBoard[board]?.remove(id) != nil { lists[board] = nil }
        if byBoard[board]?.isEmpty == true { byBoard[board] = nil }
        if var w = byConnection.removeValue(forKey: id), w.remove(board) { byConnection[id] = w }
    }

    /// Forgets a connection; returns the boards it watched.
    mutating func removeAll(_ id: UInt64) -> Set<String> {
        let boards = byConnection.removeValue(forKey: id)?.set ?? []
        for b in boards {
            byBoard[b]?.remove(id)
            lists[b] = nil
            if byBoard[b]?.isEmpty == true { byBoard[b] = nil }
        }
        return boards
    }
}
