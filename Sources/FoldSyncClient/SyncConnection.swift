import FoldClient
import FoldCore
import FoldTransport
import Dispatch

/// The service-thread side of `FoldSyncClient`: one WebSocket at a time,
/// the mirrors of the subscribed boards, the actions waiting for their
/// answer, and reconnection. Every method runs on the client's service
/// thread (lws' contract); callers' threads reach it through the mailbox.
final class SyncConnection: WebClientDelegate {
    unowned var owner: FoldSyncClient!

    /// One subscribed board, its mirror, and who waits for its first snapshot.
    final class Entry {
        let board: SyncBoard
        var mirror: BoardMirror
        var waiting: [CheckedContinuation<SyncBoard, Error>] = []
        /// A subscribe was sent and not answered yet: a snapshot answering it
        /// with the same epoch means the history no longer held our position.
        var subscribing = false
        /// The board was deleted: the next snapshot starts a new epoch.
        var deleted = false
        /// This client's actions on the board not answered yet, shown on top of the mirror.
        var pending = PendingActions()

        init(board: SyncBoard) {
            self.board = board
            mirror = BoardMirror(board: board.name)
        }
    }

    private var socket: ClientSocket?
    private var connected = false
    private var backoff = Backoff(base: 0.5, cap: 10)
    private var entries: [String: Entry] = [:]
    /// Every action called and not answered (`Outbox`), and who waits for each.
    private var outbox: Outbox
    private var callers: [Outbox.Ticket: CheckedContinuation<Int, Error>] = [:]
    /// What each action in the outbox shows as, until its answer.
    private var shownAs: [Outbox.Ticket: (board: String, key: String, action: Action)] = [:]
    /// The `session` of this connection and of the ones before it (`hello`):
    /// a patch `by` one of them may be one of our actions landing, also when
    /// a resume delivers it after a cut.
    private var sessions: [String] = []
    /// The once-a-second check of the outbox's age bound is armed.
    private var ticking = false
    private var following = true
    private var closing = false

    init(outbox: Outbox) { self.outbox = outbox }

    private var client: WebClient { owner.client }
    private var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Carries out what the outbox decided.
    private func run(_ effects: [Outbox.Effect]) {
        for effect in effects {
            switch effect {
            case .send(let item):
                send(ClientRequest.action(item.action, board: item.board, id: item.key, ifRev: item.ifRev, key: item.key))
            case .settle(let item):
                send(ClientRequest.settle(board: item.board, key: item.key, id: item.key))
            case .resolve(let ticket, let rev):
                if let a = shownAs.removeValue(forKey: ticket), let e = entries[a.board] {
                    e.pending.acked(key: a.key, rev: rev, confirmedRev: e.mirror.position?.rev)
                    show(e)
                }
                callers.removeValue(forKey: ticket)?.resume(returning: rev)
            case .reject(let ticket, let error):
                if let a = shownAs.removeValue(forKey: ticket), let e = entries[a.board], e.pending.remove(key: a.key) != nil {
                    show(e, rolledBack: RolledBack(key: a.key, action: a.action, error: error))
                }
                callers.removeValue(forKey: ticket)?.resume(throwing: error)
            }
        }
        armTick()
    }

    /// While anything waits, the age bound is checked once a second.
    private func armTick() {
        guard !ticking, !outbox.items.isEmpty, !closing else { return }
        ticking = true
        client.schedule(afterMicroseconds: 1_000_000) { [weak self] in
            guard let self else { return }
            self.ticking = false
            self.run(self.outbox.tick(now: self.now))
        }
    }

    func begin() { connect() }

    private func connect() {
        guard !closing else { return }
        owner.setState(.connecting)
        switch owner.token {
        case .none: open(token: nil)
        case .value(let t): open(token: t)
        case .provider(let fresh): askToken(fresh, refresh: false)
        }
    }

    /// Runs the provider off the service thread; the answer comes back as a command.
    private func askToken(_ fresh: @escaping @Sendable () async throws -> String, refresh: Bool) {
        let mailbox = owner.mailbox
        Task {
            do {
                mailbox.post(.token(try await fresh(), why: nil, refresh: refresh))
            } catch {
                mailbox.post(.token(nil, why: "the token function failed: \(error)", refresh: refresh))
            }
        }
    }

    private func open(token: String?) {
        guard !closing else { return }
        connected = false
        // The token as a header: a JWT is too long for the subprotocol offer.
        socket = client.connect(owner.endpoint, subprotocols: ["foldsync.v1"],
                                headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    private func send(_ bytes: [UInt8]) { socket?.send(bytes) }

    // MARK: WebClientDelegate

    func opened(_ s: ClientSocket) {}

    func received(_ s: ClientSocket, _ message: [UInt8]) {
        guard s === socket, let event = ServerEvent.decode(message) else { return }
        switch event {
        case .hello(let session):
            sessions = Array((sessions + [session]).suffix(16))
            connected = true
            backoff.reset()
            owner.setState(.connected)
            if !following { send(ClientRequest.view(following: false)) }
            for (name, e) in entries.sorted(by: { $0.key < $1.key }) {
                e.subscribing = true
                send(ClientRequest.subscribe(board: name, since: e.mirror.position))
            }
            // Behind the subscribes on the same connection: the daemon has resubscribed each board before it judges them.
            run(outbox.ready(now: now))
        case .authExpiring:
            if case .provider(let fresh) = owner.token { askToken(fresh, refresh: true) }
        case .ack(let id, _, let rev):
            if let id { run(outbox.answered(id: id, rev: rev ?? 0, error: nil)) }
        case .error(let code, let text, let id, let board):
            if let id {
                run(outbox.answered(id: id, rev: nil, error: SyncError(code: code, message: text)))
            } else if let board, let e = entries[board], id == nil {
                // A subscription refused or ended (not_found, forbidden): whoever waits for it hears why.
                let waiting = e.waiting
                e.waiting = []
                if e.mirror.position == nil { entries[board] = nil }
                for c in waiting { c.resume(throwing: SyncError(code: code, message: text)) }
            }
        case .snapshot, .patch, .presence, .deleted:
            guard let name = event.board, let e = entries[name] else { return }
            apply(event, to: e)
        case .other:
            break
        }
    }

    private func apply(_ event: ServerEvent, to e: Entry) {
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
                if reason == "lagging" { run(outbox.answersDropped()) }
                e.deleted = false
                e.subscribing = false
                e.pending.resynced(rev: p.rev)
                show(e, daemon: (nil, reason))
                let waiting = e.waiting
                e.waiting = []
                for c in waiting { c.resume(returning: e.board) }
            } else if case .patch(_, _, let ops, let by) = event {
                e.subscribing = false
                if let before { e.pending.patched(rev: p.rev, before: before, after: state, own: by.map(sessions.contains) ?? true) }
                show(e, daemon: (ops, nil))
            }
        case .deleted:
            e.deleted = true
            e.board.update(state: nil, confirmed: nil, position: e.mirror.position)
        case .outOfStep:
            e.subscribing = false
            send(ClientRequest.subscribe(board: e.board.name, since: nil))
        case .presence:
            e.board.update(viewers: e.mirror.viewers, following: e.mirror.following)
        case .unchanged:
            break
        }
    }

    /// Puts the board's mirror and what it shows on `SyncBoard`, and tells
    /// the application: a daemon's change (`ops`, and `reason` for a
    /// resync), or a local one when the board shown moved or an action was
    /// rolled back.
    private func show(_ e: Entry, daemon: (ops: JSON?, reason: String?)? = nil, rolledBack: RolledBack? = nil) {
        guard let confirmed = e.mirror.state, let p = e.mirror.position else { return }
        let state = e.pending.shown(confirmed: confirmed, rev: p.rev) ?? confirmed
        let moved = e.board.state != state
        e.board.update(state: state, confirmed: confirmed, position: p)
        if let daemon {
            let resync = daemon.ops == nil
            e.board.publish(BoardChange(rev: p.rev, epoch: p.epoch, ops: daemon.ops, state: state,
                                        resynced: resync && daemon.reason != nil, reason: daemon.reason, confirmed: confirmed))
        } else if moved || rolledBack != nil {
            e.board.publish(BoardChange(rev: p.rev, epoch: p.epoch, ops: nil, state: state, resynced: false, reason: nil,
                                        confirmed: confirmed, local: true, rolledBack: rolledBack))
        }
    }

    func closed(_ s: ClientSocket, _ reason: ClientCloseReason) {
        guard s === socket else { return }
        socket = nil
        connected = false
        outbox.lost()
        if case .refused(let status) = reason, status == 401 || status == 403 {
            // Whoever waits for a first snapshot hears the refusal now, not after a retry that will be refused too.
            for e in entries.values where !e.waiting.isEmpty {
                let waiting = e.waiting
                e.waiting = []
                for c in waiting { c.resume(throwing: SyncError(code: "forbidden", message: "\(reason)")) }
            }
        }
        if closing {
            finish()
            return
        }
        let delay = backoff.next(random: Double.random(in: 0...1))
        owner.setState(.disconnected(reason: "\(reason)", retryIn: delay))
        client.schedule(afterMicroseconds: Int64(delay * 1e6)) { [weak self] in self?.connect() }
    }

    func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {}

    func woken() {
        for command in owner.mailbox.drain() {
            switch command {
            case .subscribe(let name, let c):
                guard !closing else { c.resume(throwing: SyncError(code: "closed", message: "the client is closed")); continue }
                if let e = entries[name] {
                    if e.mirror.state != nil { c.resume(returning: e.board) } else { e.waiting.append(c) }
                    continue
                }
                let e = Entry(board: SyncBoard(name: name, client: owner))
                e.waiting.append(c)
                entries[name] = e
                if connected {
                    e.subscribing = true
                    send(ClientRequest.subscribe(board: name, since: nil))
                }
            case .act(let ticket, let board, let action, let ifRev, let c):
                guard !closing else {
                    c.resume(throwing: SyncError(code: "closed", message: "the client is closed: the action was not sent"))
                    continue
                }
                callers[ticket] = c
                run(outbox.call(ticket, board: board, action: action, ifRev: ifRev, now: now))
                if let item = outbox.items.last, item.ticket == ticket {
                    shownAs[ticket] = (board, item.key, action)
                    if let e = entries[board] {
                        e.pending.add(key: item.key, action: action, ifRev: ifRev)
                        show(e)
                    }
                }
            case .cancel(let ticket):
                run(outbox.cancel(ticket))
            case .view(let f):
                following = f
                if connected { send(ClientRequest.view(following: f)) }
            case .close:
                guard !closing else { continue }
                closing = true
                run(outbox.closeAll())
                if let socket { socket.close(code: .normal, reason: "bye") } else { finish() }
            case .token(let token, let why, let refresh):
                if let why { owner.reportTokenFailure(why) }
                if refresh {
                    if let token, connected { send(ClientRequest.auth(token: token)) }
                } else {
                    open(token: token)
                }
            }
        }
    }

    private func finish() {
        for e in entries.values {
            for c in e.waiting { c.resume(throwing: SyncError(code: "closed", message: "the client was closed")) }
            e.waiting = []
            e.board.finish()
        }
        owner.setState(.closed)
        client.stop()
    }
}
