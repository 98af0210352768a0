import FoldClient
import FoldCore
import FoldSession
import FoldSystem
import FoldTransport
import Glibc

/// The live view: the terminal, the session and the pure `LiveModel` wired
/// together. An action typed goes to the session's outbox and shows at
/// once: the session shows each board with the actions not answered yet on
/// top. Service thread: everything here runs inside `WebClient.run()`
/// (delegate callbacks, timers, inbox events); the stdin reader thread and
/// signal sources only post to the inbox.
final class LiveView: SessionHandler {
    let session: Session
    let terminal = Terminal()
    var model: LiveModel
    var decoder = KeyDecoder()
    var lastFrame: [ScreenLine] = []
    var needsClear = false
    var quitting = false
    /// The board subscribed (the model's, once a switch is under way).
    var board: String
    /// Actions typed here and not answered yet, so their errors are shown.
    var sent: Set<SessionMachine.Ticket> = []
    /// The session just took an action back: the error that follows says so.
    var undone = false
    var boardsFetch: UInt64?
    /// Why the last connection ended, for the status line.
    var why = "connection lost"

    init(session: Session) {
        self.session = session
        board = session.options.board
        model = LiveModel(board: board, rows: 24, columns: 80)
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
        session.subscribe(board)
        session.start()
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
                sent.insert(session.act(action, on: board))
            case .setView(let following):
                session.view(following: following)
            case .fetchBoards:
                boardsFetch = session.fetchAPI("/api/boards")
            case .switchBoard(let name):
                session.unsubscribe(board)
                board = name
                session.subscribe(name)
            case .quit:
                quit()
            }
        }
    }

    // MARK: SessionHandler

    /// Errors that answer no action (a subscription refused, a request the
    /// daemon could not read) show in the status line as they come.
    func sessionReceived(_ event: ServerEvent, raw: [UInt8]) {
        if case .error(let code, let message, nil, _) = event {
            model.show("error: \(code): \(message)", now: Self.now())
            redraw()
        }
    }

    func sessionClosed(_ reason: ClientCloseReason, url: String) {
        switch reason {
        case .failed: why = "daemon unreachable"
        case .refused(401): why = "token refused"
        case .refused(let status): why = "refused (HTTP \(status))"
        case .closed(.goingAway?, _): why = "daemon restarting"
        case .closed: why = "connection lost"
        }
    }

    func sessionOutput(_ output: SessionMachine.Output) {
        switch output {
        case .state(.connected):
            model.connection = .connected
        case .state(.disconnected(_, let retryIn)):
            model.connection = .reconnecting(at: Self.now() + retryIn, why: why)
        case .show(let name, let state?, _, let position) where name == board:
            model.update(document: try? Board(trusted: state), position: position)
        case .deleted(let name) where name == board:
            model.boardDeleted()
        case .presence(let name, let viewers, let following) where name == board:
            model.viewers = viewers
            model.followers = following
        case .change(_, let change) where change.rolledBack != nil:
            undone = true
        case .resolve(let ticket, _):
            sent.remove(ticket)
        case .reject(let ticket, let error):
            if sent.remove(ticket) != nil {
                model.show("error: \(error.code): \(error.message)\(undone ? " (undone)" : "")", now: Self.now())
            }
            undone = false
        default:
            return
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
