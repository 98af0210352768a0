import Dispatch
import FoldClient
import FoldCore
import FoldSession
import FoldTransport

/// A shell over `SessionMachine`: the machine decides (hello, subscribe
/// with `since`, resyncs, the outbox, the token asked again, which URL
/// next, the backoff); this owns the one socket at a time, the timers, the
/// `--token-command` runs and the HTTP fetches, and hands the machine's
/// outputs to whoever drives it (a command, watch or the live view).
/// Service thread only: every method runs inside `WebClient.run()`, from
/// delegate callbacks or timers.
final class Session: WebClientDelegate {
    let client: WebClient
    let endpoints: [Endpoint]
    let options: ClientOptions
    let inbox: Inbox
    weak var handler: SessionHandler?
    private var machine: SessionMachine
    private var socket: ClientSocket?
    /// The endpoint in use: an index of `endpoints` and `options.urls`.
    private(set) var current = 0
    /// Which URL a GET goes to next, for the commands that never open the socket.
    private var fetchFailover: Failover
    /// `--token`'s, or the last one `--token-command` printed: a connection
    /// goes on with it when the command fails, until the daemon refuses it.
    private var lastToken: String?
    /// Inputs that arrive while the outputs of another are carried out wait
    /// their turn, so that outputs are carried out in the machine's order.
    private var queued: [SessionMachine.Input] = []
    private var handling = false
    private var nextTicket: SessionMachine.Ticket = 0

    init(client: WebClient, endpoints: [Endpoint], options: ClientOptions, inbox: Inbox) {
        self.client = client
        self.endpoints = endpoints
        self.options = options
        self.inbox = inbox
        let token: SessionMachine.Token = options.tokenCommand != nil ? .provider : options.token.map { .value($0) } ?? .none
        let n = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        machine = SessionMachine(clientID: String(repeating: "0", count: 16 - n.count) + n, token: token, endpoints: endpoints.count)
        fetchFailover = Failover(count: endpoints.count)
        lastToken = options.token
        client.delegate = self
    }

    var endpoint: Endpoint { endpoints[current] }
    /// The URL in use, as given.
    var url: String { options.urls[current] }

    // MARK: What the driver asks

    func start() { handle(.start) }
    func subscribe(_ board: String) { handle(.subscribe(board)) }
    func unsubscribe(_ board: String) { handle(.unsubscribe(board)) }
    func view(following: Bool) { handle(.view(following: following)) }
    func close() { handle(.close) }

    /// Hands an action to the outbox (sent with its key now or once
    /// connected); `resolve` or `reject` with the ticket answers it.
    func act(_ action: Action, on board: String) -> SessionMachine.Ticket {
        nextTicket += 1
        handle(.act(nextTicket, board: board, action: action, ifRev: nil))
        return nextTicket
    }

    /// Ends the run: closes the connection politely when there is one; the
    /// loop stops once it is gone (or shortly after, whatever happens).
    func closeAndStop() {
        close()
        client.schedule(afterMicroseconds: 300_000) { [weak self] in self?.client.stop() }
    }

    /// GET on the daemon's HTTP API, beside the WebSocket path.
    func fetchAPI(_ path: String) -> UInt64 {
        var base = endpoint.path
        if let q = base.firstIndex(of: "?") { base = String(base[..<q]) }
        if base.hasSuffix("/ws") { base.removeLast(3) }
        if base.hasSuffix("/") { base.removeLast() }
        return client.fetch(endpoint.with(path: base + path), headers: lastToken.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// A GET failed (for a command that never opens the socket): moves to
    /// the next URL; false once every URL has failed.
    func fetchFailed() -> Bool {
        let more = fetchFailover.failed()
        current = fetchFailover.current
        return more
    }

    /// For a command answered by GETs alone: a token from `--token-command`
    /// for them, as a connection would have asked for.
    func prepareFetch() {
        guard let command = options.tokenCommand else { return }
        switch TokenCommand.run(command) {
        case .success(let t): lastToken = t
        case .failure(let why): handler?.sessionTokenFailed(why.description)
        }
    }

    // MARK: The machine

    private var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    private func handle(_ input: SessionMachine.Input) {
        queued.append(input)
        guard !handling else { return }
        handling = true
        while !queued.isEmpty {
            let next = queued.removeFirst()
            for output in machine.handle(next, now: now, random: Double.random(in: 0...1)) { carryOut(output) }
        }
        handling = false
    }

    private func carryOut(_ output: SessionMachine.Output) {
        switch output {
        case .connect(let token, let index):
            current = index
            handler?.sessionConnecting(to: url)
            socket = client.connect(endpoint, subprotocols: [Subprotocol.plain],
                                    headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
        case .askToken(let refresh):
            askToken(refresh: refresh)
        case .send(let bytes):
            socket?.send(bytes)
        case .disconnect:
            socket?.close(code: .normal, reason: "bye")
        case .retry(let after):
            client.schedule(afterMicroseconds: Int64(after * 1e6)) { [weak self] in self?.handle(.retry) }
            handler?.sessionOutput(output)
        case .tick(let after):
            client.schedule(afterMicroseconds: Int64(after * 1e6)) { [weak self] in self?.handle(.tick) }
        case .tokenFailed(let why):
            handler?.sessionTokenFailed(why)
        case .finished:
            handler?.sessionOutput(output)
            client.stop()
        default:
            handler?.sessionOutput(output)
        }
    }

    /// Runs `--token-command` (bounded, on this thread) and answers the machine.
    private func askToken(refresh: Bool) {
        guard let command = options.tokenCommand else { return }
        switch TokenCommand.run(command) {
        case .success(let fresh):
            lastToken = fresh
            handle(.token(fresh, failure: nil, refresh: refresh))
        case .failure(let why):
            // Nothing to send in band; a new connection tries the token it had.
            handle(.token(refresh ? nil : lastToken, failure: why.description, refresh: refresh))
        }
    }

    // MARK: WebClientDelegate

    func opened(_ s: ClientSocket) {}

    func received(_ s: ClientSocket, _ message: [UInt8]) {
        guard s === socket, let event = ServerEvent.decode(message) else { return }
        handler?.sessionReceived(event, raw: message)
        handle(.received(event))
    }

    func closed(_ s: ClientSocket, _ reason: ClientCloseReason) {
        guard s === socket else { return }
        socket = nil
        handler?.sessionClosed(reason, url: url)
        var status: Int?
        if case .refused(let code) = reason { status = code }
        handle(.closed(reason: reason.description, status: status))
    }

    func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {
        handler?.sessionFetched(id, result)
    }

    func woken() {
        for event in inbox.drain() { handler?.sessionInbox(event) }
    }
}
