import FoldClient
import FoldCore
import FoldSession
import FoldTransport
import Glibc

/// Runs one scriptable command over a session: connect, subscribe (when the
/// command needs the board), do the one thing, wait for its answer, and
/// finish with an exit status. Service thread.
final class ScriptCommand: SessionHandler {
    let session: Session
    let command: Command
    let options: ClientOptions
    /// Read before connecting (`load`): the document to send.
    let document: Board?
    private(set) var exitCode: Int32?
    /// The action handed to the session, until its answer.
    private var ticket: SessionMachine.Ticket?
    /// A connection is open: an action handed over has gone out on it.
    private var open = false
    /// The board as the session shows it (the daemon's, confirmed).
    private var mirror: BoardMirror
    private var sectionsBefore: Set<String> = []
    private var fetchID: UInt64?
    /// How the last connection ended.
    private var lastFailure: String?

    init(session: Session, command: Command, options: ClientOptions, document: Board?) {
        self.session = session
        self.command = command
        self.options = options
        self.document = document
        mirror = BoardMirror(board: options.board)
    }

    var board: String { options.board }

    func start() {
        session.handler = self
        session.client.schedule(afterMicroseconds: Int64(options.timeout * 1_000_000)) { [weak self] in
            self?.fail("no answer from \(self?.session.url ?? "the daemon") within \(self?.options.timeout ?? 0)s")
        }
        if let fetchPath {
            session.prepareFetch()
            fetchID = session.fetchAPI(fetchPath)
        } else if case .load = command, let document {
            ticket = session.act(.replace(document), on: board)
            session.start()
        } else {
            session.subscribe(board)
            session.start()
        }
    }

    /// The HTTP path of a command answered by a GET (boards, history); nil for the WebSocket ones.
    var fetchPath: String? {
        if command == .boards { return "/api/boards" }
        if case .history(let since, let before, let limit) = command {
            return HistoryText.path(board: board, since: since, before: before, limit: limit)
        }
        return nil
    }

    /// Ends the run with `code`: the socket is closed politely, and the loop
    /// stops once it is gone (or shortly after, whatever happens).
    func finish(_ code: Int32) {
        guard exitCode == nil else { return }
        exitCode = code
        session.closeAndStop()
    }

    func fail(_ message: String) {
        guard exitCode == nil else { return }
        Output.fail(message)
        finish(1)
    }

    // MARK: SessionHandler

    /// Any error not answering an action ends the command (the action's own comes as `reject`).
    func sessionReceived(_ event: ServerEvent, raw: [UInt8]) {
        if case .error(let code, let message, nil, _) = event { fail("\(code): \(message)") }
    }

    /// Before the action went out, the session tries the next URL; after,
    /// the outcome is unknown here, so it is reported, not sent again.
    func sessionClosed(_ reason: ClientCloseReason, url: String) {
        lastFailure = "\(url): \(reason)"
        if ticket != nil && open { fail("\(url): \(reason)") }
    }

    func sessionOutput(_ output: SessionMachine.Output) {
        guard exitCode == nil else { return }
        switch output {
        case .state(.connected):
            open = true
        case .state(.disconnected):
            open = false
        case .show(let name, _, let confirmed?, let position?) where name == board:
            mirror = BoardMirror(board: name)
            _ = mirror.apply(.snapshot(board: name, position: position, state: confirmed))
        case .ready(let name) where name == board && ticket == nil:
            ready()
        case .deleted(let name) where name == board && ticket == nil:
            fail("not_found: board '\(board)' was deleted")
        case .resolve(let t, let rev) where t == ticket:
            done(rev: rev)
        case .reject(let t, let error) where t == ticket:
            fail("\(error.code): \(error.message)")
        case .retry:
            // Every URL failed in a row: a command fails rather than wait out the backoff.
            fail(lastFailure ?? "\(session.url): connection lost")
        default:
            break
        }
    }

    func sessionFetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {
        guard id == fetchID else { return }
        switch result {
        case .failure(let e):
            let failed = session.url
            if session.fetchFailed(), let fetchPath {
                fetchID = session.fetchAPI(fetchPath)
            } else {
                fail("\(failed): \(e.description)")
            }
        case .success(let reply) where command != .boards:
            historyFetched(reply)
        case .success(let reply):
            guard reply.status == 200, let json = try? JSONParser.parse(reply.body),
                  let list = json["boards"]?.arrayValue else {
                fail("GET /api/boards answered \(reply.status)")
                return
            }
            if options.json {
                Output.out(String(decoding: json.encoded(), as: UTF8.self) + "\n")
            } else {
                var text = ""
                for b in list {
                    text += "\(b["board"]?.stringValue ?? "?")  rev \(b["rev"]?.intValue ?? 0)\n"
                }
                Output.out(text)
            }
            finish(0)
        }
    }

    private func historyFetched(_ reply: HTTPReply) {
        guard let json = try? JSONParser.parse(reply.body, maxDepth: 512) else {
            return fail("GET history answered \(reply.status) with no JSON")
        }
        guard reply.status == 200 else {
            return fail("\(json["code"]?.stringValue ?? String(reply.status)): \(json["message"]?.stringValue ?? "")")
        }
        if options.json {
            Output.out(String(decoding: reply.body, as: UTF8.self) + "\n")
        } else {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            var forward = false
            if case .history(let since?, _, _) = command { forward = since >= 0 }
            Output.out(HistoryText.render(json, todayMs: Int(now.tv_sec) * 1000, forward: forward))
        }
        finish(0)
    }

    func sessionInbox(_ event: AppEvent) {
        if case .signal = event { fail("interrupted") }
    }

    // MARK: Steps

    /// The snapshot is in: read-only commands answer now, actions are sent.
    private func ready() {
        guard let doc = mirror.document else {
            fail("the board '\(board)' is not a valid board document")
            return
        }
        switch command {
        case .show:
            if options.json {
                let out = JSON.object([
                    "board": .string(board), "epoch": .string(mirror.position?.epoch ?? ""),
                    "rev": .int(mirror.position?.rev ?? 0), "state": doc.json,
                ])
                Output.out(String(decoding: out.encoded(), as: UTF8.self) + "\n")
            } else {
                Output.out(TreeText.render(board: board, position: mirror.position, document: doc))
            }
            finish(0)
        case .dump:
            Output.out(String(decoding: doc.encoded(), as: UTF8.self) + "\n")
            finish(0)
        default:
            do throws(FoldError) {
                let action = try self.action()
                sectionsBefore = Set(doc.sections.map(\.id))
                ticket = session.act(action, on: board)
            } catch {
                fail("\(error.code.rawValue): \(error.message)")
            }
        }
    }

    private func section(_ ref: String) throws(FoldError) -> String {
        try mirror.resolveSection(ref).get()
    }

    private func action() throws(FoldError) -> Action {
        switch command {
        case .fold(.toggle, let s): return .toggle(section: try section(s))
        case .fold(.expand, let s): return .expand(section: try section(s))
        case .fold(.collapse, let s): return .collapse(section: try section(s))
        case .expandAll: return .expandAll
        case .collapseAll: return .collapseAll
        case .mode(let m): return .setMode(m)
        case .addSection(let title, let items, let at, let id):
            return .addSection(SectionDraft(id: id, title: title, items: items.map(JSON.string)), at: at)
        case .removeSection(let s): return .removeSection(section: try section(s))
        case .moveSection(let s, let to): return .moveSection(section: try section(s), to: to)
        case .setTitle(let s, let title): return .setTitle(section: try section(s), title: title)
        case .setItems(let s, let items): return .setItems(section: try section(s), items: items.map(JSON.string))
        case .focus(let s, let ref):
            let id = try section(s)
            return .focus(section: id, item: try mirror.resolveItem(ref, in: id).get())
        case .clearFocus: return .clearFocus
        case .revert(let rev): return .revert(rev: rev)
        default: throw FoldError(.badRequest, "not an action")
        }
    }

    /// The action was committed (or was a no-op): report and exit 0.
    private func done(rev: Int) {
        var fields: [(String, JSON)] = [("board", .string(board)), ("rev", .int(rev))]
        var text = "rev \(rev)"
        let doc = mirror.document
        switch command {
        case .fold(_, let ref):
            if let id = try? section(ref), let s = doc?.sections.first(where: { $0.id == id }) {
                fields.append(("section", .string(id)))
                fields.append(("expanded", .bool(s.expanded)))
                text = "\(id) \(s.expanded ? "expanded" : "collapsed") · rev \(rev)"
            }
        case .addSection(_, _, _, let wanted):
            let added = doc?.sections.map(\.id).first { !sectionsBefore.contains($0) } ?? wanted ?? ""
            fields.append(("section", .string(added)))
            text = added
        case .mode(let m):
            text = "mode \(m.rawValue) · rev \(rev)"
        case .focus, .clearFocus:
            let focus = doc?.focus
            fields.append(("focus", focus?.json ?? .null))
            text = focus.map { "focus \($0.section) item \($0.item) · rev \(rev)" } ?? "no focus · rev \(rev)"
        case .load:
            text = "loaded \(board) · rev \(rev)"
        case .revert(let undone):
            fields.append(("reverted", .int(undone)))
            text = "undid rev \(undone) · rev \(rev)"
        default:
            break
        }
        Output.out(options.json ? String(decoding: JSON.object(JSONObject(fields)).encoded(), as: UTF8.self) + "\n" : text + "\n")
        finish(0)
    }
}
