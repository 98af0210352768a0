import FoldCore

/// Which boards are only in the store, and what waits for one being read.
///
/// The daemon starts from the store's catalog: every board is cold (a
/// `ColdBoard`: its position and action keys, no document, no patches)
/// until something uses it. A request that names a cold board waits here
/// while the reader reads it (the hub asks once per board, however many
/// wait); a connection's later messages wait behind its first, whatever
/// they name, so a connection is still answered in the order it asked. A
/// board nobody has used for `board-idle` seconds goes cold again.
///
/// Bookkeeping only: the hub asks, and does what the answers say.
struct Residency {
    /// What waits for a board being read.
    enum Waiter {
        /// A connection whose first held message names the board.
        case session(UInt64)
        case http(HubRequest)
        case remote(RemoteUpdate)
    }

    /// What to do with a connection's message.
    enum Hold: Equatable {
        /// Handle it now.
        case go
        /// It waits behind a read already asked for.
        case held
        /// It waits: ask the reader for this board.
        case read(String)
    }

    /// What comes next for a held connection.
    enum Next {
        case message(ClientMessage)
        /// Its next message waits for this board; `read`: ask for it.
        case wait(String, read: Bool)
        /// Nothing is held any more; `closed`: the connection closed meanwhile, and now may go.
        case done(closed: Bool)
    }

    /// Boards in the store and not in memory (a board being read stays here until it is in).
    private(set) var cold: [String: ColdBoard] = [:]
    /// Boards being read, each with what waits for it, in arrival order.
    private var reading: [String: [Waiter]] = [:]
    /// Each held connection's messages, in arrival order.
    private var held: [UInt64: [ClientMessage]] = [:]
    /// Held connections that closed: they close for the hub once their messages are handled.
    private var closing: Set<UInt64> = []

    init(_ catalog: [String: ColdBoard] = [:]) { cold = catalog }

    func isCold(_ board: String) -> Bool { cold[board] != nil }
    /// No connection has messages held.
    var holdsNothing: Bool { held.isEmpty }
    /// Connection `id` has messages held.
    func holds(_ id: UInt64) -> Bool { held[id] != nil }
    func isReading(_ board: String) -> Bool { reading[board] != nil }
    /// Some board is being read (something waits for it).
    var readsAny: Bool { !reading.isEmpty }
    /// Messages of connections waiting behind a board being read.
    var heldMessages: Int { held.values.reduce(0) { $0 + $1.count } }

    subscript(board board: String) -> ColdBoard? {
        get { cold[board] }
        set { cold[board] = newValue }
    }

    /// Adds a waiter for `board`; true when it is the first, and the board must be read.
    mutating func wait(for board: String, _ w: Waiter) -> Bool {
        if reading[board] != nil {
            reading[board]!.append(w)
            return false
        }
        reading[board] = [w]
        return true
    }

    /// A connection's message. `board`: the one it names, when that one is
    /// not in memory (nil for a message naming none or a board in memory).
    mutating func hold(_ m: ClientMessage, from id: UInt64, notInMemory board: String?) -> Hold {
        if held[id] != nil {
            held[id]!.append(m)
            return .held
        }
        guard let board, cold[board] != nil else { return .go }
        held[id] = [m]
        return wait(for: board, .session(id)) ? .read(board) : .held
    }

    /// The next of a held connection's messages. One that names a cold board
    /// stays first, and the connection waits for that board, unless the
    /// hub would not read it for this connection (`mayRead` false: it goes
    /// on now, and is refused without the board).
    mutating func next(for id: UInt64, mayRead: (String) -> Bool) -> Next {
        guard let queue = held[id], let first = queue.first else {
            held[id] = nil
            return .done(closed: closing.remove(id) != nil)
        }
        if let board = first.board, cold[board] != nil, mayRead(board) {
            return .wait(board, read: wait(for: board, .session(id)))
        }
        held[id]!.removeFirst()
        return .message(first)
    }

    /// Takes a held connection's first message (its board could not be read).
    mutating func dropFirst(for id: UInt64) -> ClientMessage? {
        guard held[id]?.isEmpty == false else { return nil }
        return held[id]!.removeFirst()
    }

    /// The connection closed: true when it has messages held, and closes for the hub after them.
    mutating func closed(_ id: UInt64) -> Bool {
        guard held[id] != nil else { return false }
        closing.insert(id)
        return true
    }

    /// The reader answered for `board`: its entry and what waited for it,
    /// in order. `staysCold`: the read failed and the board stays as it was;
    /// else it is no longer cold (it is in memory, or gone).
    mutating func answered(_ board: String, staysCold: Bool) -> (entry: ColdBoard?, waiters: [Waiter]) {
        let waiters = reading.removeValue(forKey: board) ?? []
        return (staysCold ? cold[board] : cold.removeValue(forKey: board), waiters)
    }
}
