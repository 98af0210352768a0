import FoldClient
import FoldCore
import FoldSession
import FoldSystem
import FoldTransport
import Glibc

/// The live view: the terminal, the session and the pure `LiveModel` wired
/// together. Service thread: everything here runs inside `WebClient.run()`
/// (delegate callbacks, timers, inbox events); the stdin reader thread and
/// signal sources only post to the inbox.
final class LiveView: SessionHandler {
    let session: Session
    let terminal = Terminal()
    var model: LiveModel
    var decoder = KeyDecoder()
    var backoff = Backoff(base: 0.5, cap: 10)
    var lastFrame: [ScreenLine] = []
    var needsClear = false
    var quitting = false
    /// Ids of actions sent from here, so their errors are shown.
    var sent: Set<String> = []
    var boardsFetch: UInt64?
    /// The actions typed here and not answered yet: the view shows them at
    /// once, on top of the daemon's board.
    var pending = PendingActions()
    /// The `session` of each connection so far: a patch `by` one of them
    /// may be one of ours landing (a resume brings it with an older one).
    var sessions: [String] = []

    init(session: Session) {
        self.session = session
        model = LiveModel(board: session.board, rows: 24, columns: 80)
    }

    func run() -> Int32 {
        setlocale(LC_ALL, "")
        do {
            try terminal.enter()
        } catch {
            Output.fail("cannot put the terminal in raw mode")
            return 1
        }
        let (rows, columns) = terminal.size()
        model.rows = rows
        model.columns = columns
        session.handler = self
        startReader()
        session.connect()
        tick()
        redraw()
        session.client.run()
        terminal.leave()
        return 0
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Reads the terminal on its own thread; the bytes go through the inbox.
    private func startReader() {
        let inbox = session.inbox
        SystemThread.start { @Sendable in
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let n = (try? systemCall("read") { read(0, &buffer, buffer.count) }) ?? 0
                if n <= 0 {
                    inbox.post(.inputClosed)
                    return
                }
                inbox.post(.input(Array(buffer[0..<n])))
            }
        }
    }

    /// Four times a second: countdowns and status messages that expire.
    private func tick() {
        session.client.schedule(afterMicroseconds: 250_000) { [weak self] in
            guard let self, !self.quitting else { return }
            self.model.expire(now: Self.now())
            self.redraw()
            self.tick()
        }
    }

    /// Draws when the frame differs from what is on screen.
    func redraw() {
        guard !quitting else { return }
        let lines = Layout.frame(model, now: Self.now())
        guard lines != lastFrame || needsClear else { return }
        terminal.draw(lines, columns: model.columns, clear: needsClear)
        lastFrame = lines
        needsClear = false
    }

    func quit() {
        guard !quitting else { return }
        quitting = true
        session.close()
        session.client.schedule(afterMicroseconds: 100_000) { [weak self] in self?.session.client.stop() }
    }

    private func perform(_ effects: [LiveModel.Effect]) {
        for effect in effects {
            switch effect {
            case .send(let action):
                if let id = session.send(action, keyed: true) {
                    sent.insert(id)
                    pending.add(key: id, action: action, ifRev: nil)
                    showBoard()
                } else {
                    model.show("offline: \(action.name) not sent", now: Self.now())
                }
            case .setView(let following):
                session.sendView(following: following)
            case .fetchBoards:
                boardsFetch = session.fetchAPI("/api/boards")
            case .switchBoard(let name):
                pending = PendingActions()
                session.switchBoard(to: name)
            case .quit:
                quit()
            }
        }
    }

    /// The daemon's board with the pending actions applied, to the model.
    private func showBoard() {
        let mirror = session.mirror
        let shown = pending.isEmpty ? nil : pending.shown(confirmed: mirror.state, rev: mirror.position?.rev)
        model.update(document: shown.flatMap { try? Board(trusted: $0) } ?? mirror.document, position: mirror.position)
    }

    // MARK: SessionHandler

    func sessionOpened() {
        backoff.reset()
        model.connection = .connected
        // A new connection follows until told otherwise: say so again after a reconnect.
        if !model.following { session.sendView(following: false) }
        session.subscribe(resume: true)
        redraw()
    }

    func sessionReceived(_ event: ServerEvent, raw: [UInt8], outcome: BoardMirror.Outcome) {
        if case .hello(let id) = event { sessions = Array((sessions + [id]).suffix(16)) }
        switch outcome {
        case .changed:
            if case .patch(_, let p, _, let by) = event, let before = session.before, let after = session.mirror.state {
                pending.patched(rev: p.rev, before: before, after: after, own: by.map(sessions.contains) ?? true)
            } else if case .snapshot(_, let p, _) = event {
                pending.resynced(rev: p.rev)
            }
            showBoard()
        case .presence:
            model.viewers = session.mirror.viewers
            model.followers = session.mirror.following
        case .deleted: model.boardDeleted()
        case .outOfStep, .unchanged: break
        }
        switch event {
        case .error(let code, let message, let id, _):
            if let id { sent.remove(id) }
            let rolledBack = id.flatMap { pending.remove(key: $0) } != nil
            if rolledBack { showBoard() }
            model.show("error: \(code): \(message)\(rolledBack ? " (undone)" : "")", now: Self.now())
        case .ack(let id?, _, let rev):
            sent.remove(id)
            pending.acked(key: id, rev: rev ?? 0, confirmedRev: session.mirror.position?.rev)
            showBoard()
        default:
            break
        }
        redraw()
    }

    func sessionClosed(_ reason: ClientCloseReason) {
        if quitting {
            session.client.stop()
            return
        }
        // The next daemon at once; after a whole round of failures, the backoff.
        let delay = session.failover() ? 0.05 : backoff.next(random: Double.random(in: 0..<1))
        let why: String
        switch reason {
        case .failed: why = "daemon unreachable"
        case .refused(401): why = "token refused"
        case .refused(let status): why = "refused (HTTP \(status))"
        case .closed(.goingAway?, _): why = "daemon restarting"
        case .closed: why = "connection lost"
        }
        model.connection = .reconnecting(at: Self.now() + delay, why: why)
        sent.removeAll()
        // Nothing here sends them again: shown no longer. One that the
        // daemon applied before the cut comes back with the resume.
        if !pending.isEmpty {
            pending = PendingActions()
            showBoard()
        }
        session.client.schedule(afterMicroseconds: Int64(delay * 1_000_000)) { [weak self] in
            guard let self, !self.quitting else { return }
            self.session.connect()
        }
        redraw()
    }

    func sessionFetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {
        guard id == boardsFetch else { return }
        boardsFetch = nil
        if case .success(let reply) = result, reply.status == 200,
           let list = (try? JSONParser.parse(reply.body))?["boards"]?.arrayValue {
            model.showBoards(list.compactMap { $0["board"]?.stringValue })
        } else {
            model.closeOverlay()
            model.show("cannot list the boards", now: Self.now())
        }
        redraw()
    }

    /// On the screen, not stderr: the terminal is the view's.
    func sessionTokenFailed(_ why: String) {
        model.show(why, now: Self.now())
        redraw()
    }

    func sessionInbox(_ event: AppEvent) {
        switch event {
        case .input(let bytes):
            let now = Self.now()
            for key in decoder.decode(bytes) {
                perform(model.handle(key, now: now))
                if quitting { return }
            }
        case .inputClosed:
            quit()
        case .signal(SIGWINCH):
            let (rows, columns) = terminal.size()
            model.rows = rows
            model.columns = columns
            model.scrollToCursor()
            needsClear = true
        case .signal:
            quit()
        }
        redraw()
    }
}
