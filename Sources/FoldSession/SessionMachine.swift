import FoldCore

/// One client's session with the daemon, as a machine: connecting (with a
/// token, asked again on `authExpiring`), `hello`, the subscriptions sent
/// again with `since` after every reconnect, the mirrors and the resync
/// reasons (`epoch`, `pruned`, `lagging`), the outbox (actions kept until
/// answered, sent again with their key), the pending actions shown on top
/// of each mirror, and the backoff between connections.
///
/// Pure: no socket, no clock, no randomness of its own. Every input is
/// something the transport, the application or a timer said, with the time
/// and a random number in [0, 1] for the backoff; every output is what the
/// shell must do (send, connect, wait, tell the application). With several
/// URLs (daemons of one cluster) a failure moves to the next at once, and
/// the backoff comes between whole rounds (`Failover`). The Linux library
/// (`FoldSyncClient`), the Apple one (`FoldSyncKit`) and the terminal
/// client (`foldsync`) are shells over it; `Tests/vectors/session.json`
/// pins it, in Swift, JavaScript and Python alike.
public struct SessionMachine: Sendable {
    public typealias Ticket = UInt64

    /// How the session gets its token: none, one value, or a provider the
    /// shell calls (`askToken`) before every connection and on `authExpiring`.
    public enum Token: Sendable, Equatable {
        case none
        case value(String)
        case provider
    }

    public enum Input: Sendable {
        /// Begin: connect, asking for a token first when a provider gives it.
        case start
        /// The provider answered `askToken`: a token, or nil and why not
        /// (the connection then goes on without one).
        case token(String?, failure: String?, refresh: Bool)
        /// A message from the daemon on the current connection.
        case received(ServerEvent)
        /// The current connection ended or could not open; `status` is the
        /// HTTP status that refused the upgrade, when one did.
        case closed(reason: String, status: Int?)
        /// The wait a `retry` output asked for is over.
        case retry
        /// The application wants `board`: `ready` once its snapshot is here.
        case subscribe(String)
        /// The application no longer wants `board`: its mirror is forgotten
        /// and it is not subscribed again after a reconnect.
        case unsubscribe(String)
        case act(Ticket, board: String, action: Action, ifRev: Int?)
        /// The application gave up on an action (a cancelled task).
        case cancel(Ticket)
        case view(following: Bool)
        /// For good: the outbox fails with `closed`, nothing reconnects.
        case close
        /// The application goes to the background: the connection closes
        /// cleanly and nothing reconnects; the outbox and the mirrors are kept.
        case suspend
        /// Back in the foreground (or the network is back): connect at once,
        /// without waiting out the backoff; the boards resume with `since`.
        case resume
        /// The second a `tick` output asked for has passed.
        case tick
    }

    public enum Output: Sendable {
        /// Open a connection to URL number `endpoint` (an index of the
        /// shell's URLs; always 0 with one), with `token` as `Authorization: Bearer`.
        case connect(token: String?, endpoint: Int)
        /// Call the token provider and answer with `.token`.
        case askToken(refresh: Bool)
        /// A message on the current connection.
        case send([UInt8])
        /// Close the current connection (code 1000); `closed` follows.
        case disconnect
        case state(SyncState)
        /// Wait `after` seconds, then input `.retry`.
        case retry(after: Double)
        /// Wait `after` seconds, then input `.tick`.
        case tick(after: Double)
        case resolve(Ticket, rev: Int)
        case reject(Ticket, SyncError)
        /// The board's first snapshot is here: whoever subscribed gets it.
        case ready(String)
        /// The subscription was refused (or the client closed before it was answered).
        case refused(String, SyncError)
        /// What the board shows now: the mirror with the pending actions on top.
        case show(board: String, state: JSON?, confirmed: JSON?, position: Position?)
        case change(board: String, BoardChange)
        case presence(board: String, viewers: Int?, following: Int?)
        /// The board was deleted: it shows nothing until a board of that name comes back (a new epoch).
        case deleted(String)
        /// The token provider failed (`why`); the session goes on without a token.
        case tokenFailed(String)
        /// Closed for good: finish every stream.
        case finished
    }

    /// Where the session stands between inputs.
    enum Phase: Equatable {
        case idle
        /// A token is being asked for, or a connection is opening.
        case connecting
        /// `hello` arrived on the current connection.
        case open
        /// Between connections: a `retry` is due.
        case waiting
        /// `suspend`: no connection until `resume`.
        case suspended
        case closing
        case closed
    }

    /// One subscribed board.
    struct Entry: Sendable {
        var mirror: BoardMirror
        /// Someone waits for the first snapshot (`ready` or `refused`).
        var awaited = true
        /// A subscribe was sent and not answered yet: a snapshot answering it
        /// with the same epoch means the history no longer held our position.
        var subscribing = false
        /// The board was deleted: the next snapshot starts a new epoch.
        var deleted = false
        /// This client's actions on the board not answered yet, shown on top of the mirror.
        var pending = PendingActions()

        init(board: String) { mirror = BoardMirror(board: board) }
    }

    public let token: Token
    /// The token the connections are opened with: the value, or the last
    /// one the provider gave (nil before it gave one). The HTTP API beside
    /// the socket (history) is asked with it.
    public private(set) var bearer: String?
    private(set) var phase = Phase.idle
    private var backoff = Backoff(base: 0.5, cap: 10)
    private var failover: Failover
    private var entries: [String: Entry] = [:]
    private var outbox: Outbox
    /// What each action in the outbox shows as, until its answer.
    private var shownAs: [Ticket: (board: String, key: String, action: Action)] = [:]
    /// The `session` of this connection and of the ones before it (`hello`):
    /// a patch `by` one of them may be one of our actions landing, also when
    /// a resume delivers it after a cut.
    private var sessions: [String] = []
    /// A connection exists (opening or open): `send` has somewhere to go.
    private var linked = false
    /// A `tick` is due: the outbox's age bound is checked once a second while it holds anything.
    private var ticking = false
    private var following = true
    /// `resume` came while the connection `suspend` closed was still open.
    private var resumeWhenClosed = false
    private var out: [Output] = []

    /// `clientID` starts every action's key (`<clientID>-<n>`): 16 random
    /// hex digits in the libraries, so no two clients share a key.
    /// `endpoints`: how many URLs the shell has to connect to.
    public init(clientID: String, token: Token = .none, limits: OutboxLimits = OutboxLimits(), endpoints: Int = 1) {
        self.token = token
        if case .value(let t) = token { bearer = t }
        failover = Failover(count: endpoints)
        outbox = Outbox(clientID: clientID, limits: limits)
    }

    /// Actions called and not answered yet.
    public var outboxCount: Int { outbox.items.count }

    /// `now`: seconds on a monotonic clock; `random`: in [0, 1], spreads the backoff.
    public mutating func handle(_ input: Input, now: Double, random: Double = 0.5) -> [Output] {
        out = []
        switch input {
        case .start:
            if phase == .idle { connect() }
        case .token(let value, let failure, let refresh):
            if let failure { out.append(.tokenFailed(failure)) }
            if let value { bearer = value }
            if refresh {
                if let value, phase == .open { send(ClientRequest.auth(token: value)) }
            } else if phase == .connecting && !linked {
                open(token: value)
            }
        case .received(let event):
            if linked { received(event, now: now) }
        case .closed(let reason, let status):
            closed(reason: reason, status: status, random: random)
        case .retry:
            if phase == .waiting { connect() }
        case .subscribe(let name):
            subscribe(name)
        case .unsubscribe(let name):
            if entries.removeValue(forKey: name) != nil && phase == .open { send(ClientRequest.unsubscribe(board: name)) }
        case .act(let ticket, let board, let action, let ifRev):
            act(ticket, board: board, action: action, ifRev: ifRev, now: now)
        case .cancel(let ticket):
            run(outbox.cancel(ticket))
        case .view(let f):
            following = f
            if phase == .open { send(ClientRequest.view(following: f)) }
        case .close:
            close()
        case .suspend:
            guard phase == .connecting || phase == .open || phase == .waiting else { break }
            resumeWhenClosed = false
            phase = .suspended
            out.append(.state(.suspended))
            if linked { out.append(.disconnect) }
        case .resume:
            guard phase == .suspended || phase == .waiting else { break }
            backoff.reset()
            failover.opened()
            // Still closing the connection `suspend` ended: the next one opens once it is gone.
            if linked { resumeWhenClosed = true } else { connect() }
        case .tick:
            ticking = false
            if phase != .closed { run(outbox.tick(now: now)) }
        }
        return out
    }

    private mutating func send(_ bytes: [UInt8]) {
        if linked { out.append(.send(bytes)) }
    }

    private mutating func connect() {
        phase = .connecting
        out.append(.state(.connecting))
        switch token {
        case .none: open(token: nil)
        case .value(let t): open(token: t)
        case .provider: out.append(.askToken(refresh: false))
        }
    }

    private mutating func open(token: String?) {
        linked = true
        out.append(.connect(token: token, endpoint: failover.current))
    }

    private mutating func received(_ event: ServerEvent, now: Double) {
        switch event {
        case .hello(let session):
            sessions = Array((sessions + [session]).suffix(16))
            guard phase == .connecting || phase == .open else { return }
            phase = .open
            backoff.reset()
            failover.opened()
            out.append(.state(.connected))
            if !following { send(ClientRequest.view(following: false)) }
            for name in entries.keys.sorted() {
                entries[name]!.subscribing = true
                send(ClientRequest.subscribe(board: name, since: entries[name]!.mirror.position))
            }
            // Behind the subscribes on the same connection: the daemon has resubscribed each board before it judges them.
            run(outbox.ready(now: now))
        case .authExpiring:
            if token == .provider { out.append(.askToken(refresh: true)) }
        case .ack(let id, _, let rev):
            if let id { run(outbox.answered(id: id, rev: rev ?? 0, error: nil)) }
        case .error(let code, let text, let id, let board):
            if let id {
                run(outbox.answered(id: id, rev: nil, error: SyncError(code: code, message: text)))
            } else if let board, let e = entries[board] {
                // A subscription refused or ended (not_found, forbidden): whoever waits for it hears why.
                if e.awaited {
                    entries[board]!.awaited = false
                    out.append(.refused(board, SyncError(code: code, message: text)))
                }
                if e.mirror.position == nil {
                    entries[board] = nil
                } else if code == "not_found" && e.mirror.state != nil {
                    // Resubscribing found it gone: deleted while we were away.
                    apply(.deleted(board: board), to: board)
                }
            }
        case .snapshot, .patch, .presence, .deleted:
            guard let name = event.board, entries[name] != nil else { return }
            apply(event, to: name)
        case .other:
            break
        }
    }

    private mutating func apply(_ event: ServerEvent, to name: String) {
        var e = entries[name]!
        defer { entries[name] = e }
        let had = e.mirror.position
        let before = e.mirror.state
        switch e.mirror.apply(event) {
        case .changed:
            guard let state = e.mirror.state, let p = e.mirror.position else { return }
            if case .snapshot = event {
                var reason: String?
                if had != nil || e.deleted {
                    if e.deleted || had?.epoch != p.epoch { reason = "epoch" } else if e.subscribing { reason = "pruned" } else { reason = "lagging" }
                }
                // An unasked-for snapshot: acks queued behind it were dropped (guarantee 2).
                if reason == "lagging" {
                    entries[name] = e
                    run(outbox.answersDropped())
                    e = entries[name]!
                }
                let first = had == nil && !e.deleted
                e.deleted = false
                e.subscribing = false
                e.pending.resynced(rev: p.rev)
                // The first snapshot is the board's start, not a change: `ready` says it.
                show(&e, daemon: first ? nil : (nil, reason), quiet: first)
                if e.awaited {
                    e.awaited = false
                    out.append(.ready(name))
                }
            } else if case .patch(_, _, let ops, let by) = event {
                e.subscribing = false
                if let before { e.pending.patched(rev: p.rev, before: before, after: state, own: by.map(sessions.contains) ?? true) }
                show(&e, daemon: (ops, nil))
            }
        case .deleted:
            e.deleted = true
            out.append(.show(board: name, state: nil, confirmed: nil, position: e.mirror.position))
            out.append(.deleted(name))
        case .outOfStep:
            // Asked again: the snapshot that answers is the daemon's whole board (`pruned`), not a dropped queue.
            e.subscribing = true
            send(ClientRequest.subscribe(board: name, since: nil))
        case .presence:
            out.append(.presence(board: name, viewers: e.mirror.viewers, following: e.mirror.following))
        case .unchanged:
            break
        }
    }

    /// What the board shows, and the change the application is told: a
    /// daemon's (`ops`, and `reason` for a resync), or a local one when the
    /// board shown moved or an action was rolled back.
    private mutating func show(_ e: inout Entry, daemon: (ops: JSON?, reason: String?)? = nil, rolledBack: RolledBack? = nil,
                               was: JSON? = nil, quiet: Bool = false) {
        guard let confirmed = e.mirror.state, let p = e.mirror.position else { return }
        let name = e.mirror.board
        let state = e.pending.shown(confirmed: confirmed, rev: p.rev) ?? confirmed
        out.append(.show(board: name, state: state, confirmed: confirmed, position: p))
        if quiet { return }
        if let daemon {
            out.append(.change(board: name, BoardChange(rev: p.rev, epoch: p.epoch, ops: daemon.ops, state: state,
                                                        resynced: daemon.ops == nil && daemon.reason != nil, reason: daemon.reason,
                                                        confirmed: confirmed)))
        } else if was != state || rolledBack != nil {
            out.append(.change(board: name, BoardChange(rev: p.rev, epoch: p.epoch, ops: nil, state: state, resynced: false, reason: nil,
                                                        confirmed: confirmed, local: true, rolledBack: rolledBack)))
        }
    }

    /// What the board showed before a local change (to tell whether it moved).
    private func shown(_ e: Entry) -> JSON? {
        guard let confirmed = e.mirror.state, let p = e.mirror.position else { return nil }
        return e.pending.shown(confirmed: confirmed, rev: p.rev) ?? confirmed
    }

    private mutating func closed(reason: String, status: Int?, random: Double) {
        guard linked else { return }
        linked = false
        outbox.lost()
        if status == 401 || status == 403 {
            // Whoever waits for a first snapshot hears the refusal now, not after a retry that will be refused too.
            for name in entries.keys.sorted() where entries[name]!.awaited {
                entries[name]!.awaited = false
                out.append(.refused(name, SyncError(code: "forbidden", message: reason)))
            }
        }
        if phase == .closing { return finish() }
        if phase == .suspended {
            if resumeWhenClosed { connect() }
            resumeWhenClosed = false
            return
        }
        if failover.failed() {
            out.append(.state(.disconnected(reason: reason, retryIn: 0)))
            return connect()
        }
        phase = .waiting
        let delay = backoff.next(random: random)
        out.append(.state(.disconnected(reason: reason, retryIn: delay)))
        out.append(.retry(after: delay))
    }

    private mutating func subscribe(_ name: String) {
        guard phase != .closing && phase != .closed else {
            return out.append(.refused(name, SyncError(code: "closed", message: "the client is closed")))
        }
        if entries[name] != nil {
            if entries[name]!.mirror.state != nil { out.append(.ready(name)) } else { entries[name]!.awaited = true }
            return
        }
        entries[name] = Entry(board: name)
        if phase == .open {
            entries[name]!.subscribing = true
            send(ClientRequest.subscribe(board: name, since: nil))
        }
    }

    private mutating func act(_ ticket: Ticket, board: String, action: Action, ifRev: Int?, now: Double) {
        guard phase != .closing && phase != .closed else {
            return out.append(.reject(ticket, SyncError(code: "closed", message: "the client is closed: the action was not sent")))
        }
        run(outbox.call(ticket, board: board, action: action, ifRev: ifRev, now: now))
        guard let item = outbox.items.last, item.ticket == ticket else { return }
        shownAs[ticket] = (board, item.key, action)
        if var e = entries[board] {
            let was = shown(e)
            e.pending.add(key: item.key, action: action, ifRev: ifRev)
            show(&e, was: was)
            entries[board] = e
        }
    }

    private mutating func close() {
        guard phase != .closing && phase != .closed else { return }
        let wasLinked = linked
        phase = .closing
        run(outbox.closeAll())
        if wasLinked { out.append(.disconnect) } else { finish() }
    }

    private mutating func finish() {
        phase = .closed
        for name in entries.keys.sorted() where entries[name]!.awaited {
            entries[name]!.awaited = false
            out.append(.refused(name, SyncError(code: "closed", message: "the client was closed")))
        }
        out.append(.state(.closed))
        out.append(.finished)
    }

    /// Carries out what the outbox decided.
    private mutating func run(_ effects: [Outbox.Effect]) {
        for effect in effects {
            switch effect {
            case .send(let item):
                send(ClientRequest.action(item.action, board: item.board, id: item.key, ifRev: item.ifRev, key: item.key))
            case .settle(let item):
                send(ClientRequest.settle(board: item.board, key: item.key, id: item.key))
            case .resolve(let ticket, let rev):
                if let a = shownAs.removeValue(forKey: ticket), var e = entries[a.board] {
                    let was = shown(e)
                    e.pending.acked(key: a.key, rev: rev, confirmedRev: e.mirror.position?.rev)
                    show(&e, was: was)
                    entries[a.board] = e
                }
                out.append(.resolve(ticket, rev: rev))
            case .reject(let ticket, let error):
                if let a = shownAs.removeValue(forKey: ticket), var e = entries[a.board] {
                    let was = shown(e)
                    if e.pending.remove(key: a.key) != nil {
                        show(&e, rolledBack: RolledBack(key: a.key, action: a.action, error: error), was: was)
                        entries[a.board] = e
                    }
                }
                out.append(.reject(ticket, error))
            }
        }
        if !ticking && outbox.items.count > 0 && phase != .closing && phase != .closed {
            ticking = true
            out.append(.tick(after: 1))
        }
    }
}
