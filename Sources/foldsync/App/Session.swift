import FoldClient
import FoldCore
import FoldSession
import FoldTransport

/// What a session reports to whoever drives it (a command or the live view).
/// Service thread, like the session itself.
protocol SessionHandler: AnyObject {
    func sessionOpened()
    func sessionReceived(_ event: ServerEvent, raw: [UInt8], outcome: BoardMirror.Outcome)
    func sessionClosed(_ reason: ClientCloseReason)
    func sessionFetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>)
    func sessionInbox(_ event: AppEvent)
    /// `--token-command` failed; the connection goes on with the token it has until the daemon refuses it.
    func sessionTokenFailed(_ why: String)
}

extension SessionHandler {
    func sessionTokenFailed(_ why: String) { Output.fail(why) }
}

/// One daemon connection at a time (a reconnect makes a new socket) and the
/// mirror of the board being watched. With several URLs (daemons of one
/// cluster) a failure moves to the next, and the mirror's position makes the
/// new subscription a resume. Service thread only: every method runs inside
/// `WebClient.run()`, from delegate callbacks or timers.
final class Session: WebClientDelegate {
    let client: WebClient
    let endpoints: [Endpoint]
    /// The endpoint in use: an index of `endpoints` and `options.urls`.
    private(set) var current = 0
    /// URLs that failed since a connection last opened.
    private var failedInARow = 0
    let options: ClientOptions
    let inbox: Inbox
    private(set) var board: String
    private(set) var mirror: BoardMirror
    /// The mirror's state before the last event (what a patch applied to).
    private(set) var before: JSON?
    private(set) var socket: ClientSocket?
    weak var handler: SessionHandler?
    private var nextActionID = 1

    init(client: WebClient, endpoints: [Endpoint], options: ClientOptions, inbox: Inbox) {
        self.client = client
        self.endpoints = endpoints
        self.options = options
        self.inbox = inbox
        board = options.board
        mirror = BoardMirror(board: options.board)
        client.delegate = self
    }

    var isOpen: Bool { socket?.state == .open }
    var endpoint: Endpoint { endpoints[current] }
    /// The URL in use, as given.
    var url: String { options.urls[current] }

    /// After a failure: moves to the next URL. False when every URL has
    /// failed since a connection last opened (a whole round); the next
    /// round then starts over from the next URL.
    func failover() -> Bool {
        failedInARow += 1
        current = (current + 1) % endpoints.count
        guard failedInARow < endpoints.count else {
            failedInARow = 0
            return false
        }
        return true
    }

    /// The token in use: `--token`'s, or the last one `--token-command` printed.
    private(set) var token: String?

    var authHeaders: [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    /// Asks `--token-command` for a token; false (and says why) when it fails.
    @discardableResult
    func refreshToken() -> Bool {
        guard let command = options.tokenCommand else { return true }
        switch TokenCommand.run(command) {
        case .success(let fresh):
            token = fresh
            return true
        case .failure(let why):
            handler?.sessionTokenFailed(why.description)
            return false
        }
    }

    func connect() {
        if options.tokenCommand != nil { refreshToken() } else { token = options.token }
        socket = client.connect(endpoint, subprotocols: [Subprotocol.plain], headers: authHeaders)
    }

    /// Subscribes to the current board; `resume` offers the mirror's position.
    func subscribe(resume: Bool) {
        socket?.send(ClientRequest.subscribe(board: board, since: resume ? mirror.position : nil))
    }

    /// Sends an action with a fresh id and returns the id; nil when offline
    /// (nothing is queued for later). `keyed`: the id goes as the action's
    /// `key` too, prefixed with this run's random client id, so that a copy
    /// can never be applied twice.
    func send(_ action: Action, board target: String? = nil, keyed: Bool = false) -> String? {
        guard isOpen, let socket else { return nil }
        let id = keyed ? "\(clientID)-\(nextActionID)" : "fs\(nextActionID)"
        nextActionID += 1
        socket.send(ClientRequest.action(action, board: target ?? board, id: id, key: keyed ? id : nil))
        return id
    }
    private let clientID: String = {
        let n = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return String(repeating: "0", count: 16 - n.count) + n
    }()

    /// Follow or browse (`view`, an extension); nothing when offline (sent again on connect).
    func sendView(following: Bool) {
        guard isOpen, let socket else { return }
        socket.send(ClientRequest.view(following: following))
    }

    /// Watches another board from now on.
    func switchBoard(to name: String) {
        if isOpen { socket?.send(ClientRequest.unsubscribe(board: board)) }
        board = name
        mirror = BoardMirror(board: name)
        if isOpen { subscribe(resume: false) }
    }

    /// GET on the daemon's HTTP API, beside the WebSocket path.
    func fetchAPI(_ path: String) -> UInt64 {
        var base = endpoint.path
        if let q = base.firstIndex(of: "?") { base = String(base[..<q]) }
        if base.hasSuffix("/ws") { base.removeLast(3) }
        if base.hasSuffix("/") { base.removeLast() }
        return client.fetch(endpoint.with(path: base + path), headers: authHeaders)
    }

    func close() { socket?.close(code: .normal, reason: "bye") }

    /// Ends the run: closes the connection politely when there is one and
    /// stops the loop once it is gone (or shortly after, whatever happens).
    func closeAndStop() {
        if socket != nil {
            close()
            client.schedule(afterMicroseconds: 300_000) { [weak self] in self?.client.stop() }
        } else {
            client.stop()
        }
    }

    // MARK: WebClientDelegate

    func opened(_ s: ClientSocket) {
        guard s === socket else { return }
        failedInARow = 0
        handler?.sessionOpened()
    }

    func received(_ s: ClientSocket, _ message: [UInt8]) {
        guard s === socket, let event = ServerEvent.decode(message) else { return }
        if case .authExpiring = event, options.tokenCommand != nil, refreshToken(), let token {
            s.send(ClientRequest.auth(token: token))
        }
        before = mirror.state
        let outcome = mirror.apply(event)
        if case .outOfStep = outcome { subscribe(resume: false) }
        handler?.sessionReceived(event, raw: message, outcome: outcome)
    }

    func closed(_ s: ClientSocket, _ reason: ClientCloseReason) {
        guard s === socket else { return }
        socket = nil
        handler?.sessionClosed(reason)
    }

    func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {
        handler?.sessionFetched(id, result)
    }

    func woken() {
        for event in inbox.drain() { handler?.sessionInbox(event) }
    }
}
