import FoldCore

/// How long and how many actions the outbox keeps (docs/CLIENTS.md, "The outbox").
public struct OutboxLimits: Sendable, Equatable {
    /// Actions waiting at most; one more is refused at once (`expired`).
    public var maxActions: Int
    /// Seconds an action may wait. One never sent is then refused
    /// (`expired`); one sent whose answer was lost is settled instead of sent again.
    public var maxAge: Double

    public init(maxActions: Int = 1_000, maxAge: Double = 600) {
        self.maxActions = maxActions
        self.maxAge = maxAge
    }
}

/// The actions a client has called and not had answered, as one machine:
/// each input (a call, a connection ready or lost, an answer, the clock, a
/// cancel) returns what the connection must do. Every action carries a key
/// (`<client id>-<n>`), so sending it again after a lost answer is safe: the
/// daemon applies a key once (PROTOCOL.md, Guarantee 8). Pure: no socket,
/// no clock of its own, tested input by input.
struct Outbox {
    typealias Ticket = UInt64

    enum Phase: Equatable {
        /// Never sent: the daemon has not seen it.
        case waiting
        /// Sent on the connection that is up; its answer is awaited there.
        case sent
        /// Sent, and the connection ended before the answer: sent again
        /// (same key) on the next, or settled once past `maxAge`.
        case cut
        /// `settle` was sent for its key on the connection that is up.
        case settling
    }

    struct Item: Equatable {
        let ticket: Ticket
        let board: String
        let action: Action
        let ifRev: Int?
        let key: String
        let calledAt: Double
        var phase: Phase
        /// Past its age, or cancelled: never sent again, only settled.
        var settleOnly = false
    }

    enum Effect: Equatable {
        /// Send the action with its key (the key is also the message's `id`).
        case send(Item)
        /// Send `settle` for the item's key.
        case settle(Item)
        case resolve(Ticket, rev: Int)
        case reject(Ticket, SyncError)
    }

    let clientID: String
    var limits: OutboxLimits
    private(set) var items: [Item] = []
    private var counter = 0
    /// A connection is up and has been told the subscriptions (`ready`).
    private(set) var connected = false

    init(clientID: String, limits: OutboxLimits = OutboxLimits()) {
        self.clientID = clientID
        self.limits = limits
    }

    /// A new action. Sent at once when connected, else kept.
    mutating func call(_ ticket: Ticket, board: String, action: Action, ifRev: Int?, now: Double) -> [Effect] {
        guard items.count < limits.maxActions else {
            return [.reject(ticket, SyncError(code: "expired", message: "the outbox holds \(items.count) actions, its bound; this one was not sent"))]
        }
        counter += 1
        var item = Item(ticket: ticket, board: board, action: action, ifRev: ifRev, key: "\(clientID)-\(counter)", calledAt: now, phase: .waiting)
        guard connected else {
            items.append(item)
            return []
        }
        item.phase = .sent
        items.append(item)
        return [.send(item)]
    }

    /// A connection is up and every subscription was sent on it: what waits
    /// goes, in the order called; what is past its age is settled instead.
    mutating func ready(now: Double) -> [Effect] {
        connected = true
        var out = expire(now: now)
        for i in items.indices {
            switch items[i].phase {
            case .waiting:
                items[i].phase = .sent
                out.append(.send(items[i]))
            case .cut where items[i].settleOnly:
                items[i].phase = .settling
                out.append(.settle(items[i]))
            case .cut:
                items[i].phase = .sent
                out.append(.send(items[i]))
            case .sent, .settling:
                break
            }
        }
        return out
    }

    /// The connection ended: every answer awaited on it is lost.
    mutating func lost() {
        connected = false
        for i in items.indices where items[i].phase == .sent || items[i].phase == .settling {
            items[i].phase = .cut
        }
    }

    /// The daemon dropped this connection's queued answers (a `lagging`
    /// resync): what was sent goes again (a repeat is answered, not applied).
    mutating func answersDropped() -> [Effect] {
        var out: [Effect] = []
        for i in items.indices {
            switch items[i].phase {
            case .sent: out.append(.send(items[i]))
            case .settling: out.append(.settle(items[i]))
            case .waiting, .cut: break
            }
        }
        return out
    }

    /// The answer to the message with `id` (an item's key): an `ack`
    /// (`rev`), or an `error`. Nil `rev` and nil `error`: not an answer of ours.
    mutating func answered(id: String, rev: Int?, error: SyncError?) -> [Effect] {
        guard let i = items.firstIndex(where: { $0.key == id }), items[i].phase == .sent || items[i].phase == .settling else { return [] }
        let item = items.remove(at: i)
        if let rev { return [.resolve(item.ticket, rev: rev)] }
        if var error {
            if item.phase == .settling && error.code == "expired" {
                error = SyncError(code: "expired", message: "the action was never applied, and now never will be (\(error.message))")
            }
            return [.reject(item.ticket, error)]
        }
        return []
    }

    /// Once a second while anything waits: what is past its age.
    mutating func tick(now: Double) -> [Effect] {
        var out = expire(now: now)
        guard connected else { return out }
        for i in items.indices where items[i].settleOnly && items[i].phase == .cut {
            items[i].phase = .settling
            out.append(.settle(items[i]))
        }
        return out
    }

    /// The application gave up on `ticket`: unsent, it goes (`expired`);
    /// sent, its key is settled, so it is either confirmed or never applied.
    mutating func cancel(_ ticket: Ticket) -> [Effect] {
        guard let i = items.firstIndex(where: { $0.ticket == ticket }) else { return [] }
        switch items[i].phase {
        case .waiting:
            let item = items.remove(at: i)
            return [.reject(item.ticket, SyncError(code: "expired", message: "cancelled before it was sent: it was never applied"))]
        case .sent:
            items[i].settleOnly = true
            items[i].phase = .settling
            return [.settle(items[i])]
        case .cut:
            items[i].settleOnly = true
            return []
        case .settling:
            return []
        }
    }

    /// `close()`: everything still waiting fails.
    mutating func closeAll() -> [Effect] {
        defer { items = [] }
        return items.map { item in
            let sent = item.phase != .waiting
            return .reject(item.ticket, SyncError(code: "closed", message: sent
                ? "the client was closed before the answer came: the action may or may not have been applied"
                : "the client was closed before the action was sent: it was never applied"))
        }
    }

    /// Unsent items past their age fail; sent ones whose answer was lost are marked to be settled.
    private mutating func expire(now: Double) -> [Effect] {
        var out: [Effect] = []
        items.removeAll { item in
            guard item.phase == .waiting, now - item.calledAt > limits.maxAge else { return false }
            out.append(.reject(item.ticket, SyncError(code: "expired", message: "waited \(Int(limits.maxAge)) s without a connection; it was never sent, so never applied")))
            return true
        }
        for i in items.indices where items[i].phase == .cut && now - items[i].calledAt > limits.maxAge {
            items[i].settleOnly = true
        }
        return out
    }
}
