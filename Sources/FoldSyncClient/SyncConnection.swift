import FoldCore
import FoldMailbox
import FoldSession
import FoldTransport
import Dispatch

/// The service-thread side of `FoldSyncClient`: a shell over
/// `SessionMachine` that owns the one WebSocket at a time, the timers, and
/// who waits for what (subscribers, callers). Every method runs on the
/// client's service thread (lws' contract); callers' threads reach it
/// through the mailbox.
final class SyncConnection: WebClientDelegate {
    /// Weak: the application may drop the client right after `close()`,
    /// while this thread still finishes the close.
    weak var owner: FoldSyncClient?
    private let client: WebClient
    private let endpoint: Endpoint
    private let token: TokenSource
    private let mailbox: Mailbox<SyncCommand>

    private var machine: SessionMachine
    private var socket: ClientSocket?
    private var boards: [String: SyncBoard] = [:]
    private var waiting: [String: [CheckedContinuation<SyncBoard, Error>]] = [:]
    private var callers: [SessionMachine.Ticket: CheckedContinuation<Int, Error>] = [:]
    /// HTTP GETs under way (history), by `WebClient.fetch` id.
    private var fetches: [UInt64: CheckedContinuation<HTTPReply, Error>] = [:]

    init(machine: SessionMachine, client: WebClient, endpoint: Endpoint, token: TokenSource, mailbox: Mailbox<SyncCommand>) {
        self.machine = machine
        self.client = client
        self.endpoint = endpoint
        self.token = token
        self.mailbox = mailbox
    }
    private var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    func begin() { handle(.start) }

    private func handle(_ input: SessionMachine.Input) {
        for output in machine.handle(input, now: now, random: Double.random(in: 0...1)) { carryOut(output) }
    }

    private func carryOut(_ output: SessionMachine.Output) {
        switch output {
        case .connect(let token, _):
            // The token as a header: a JWT is too long for the subprotocol offer.
            socket = client.connect(endpoint, subprotocols: ["foldsync.v1"],
                                    headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
        case .askToken(let refresh):
            guard case .provider(let fresh) = token else { return }
            // Runs the provider off the service thread; the answer comes back as a command.
            let mailbox = mailbox
            Task {
                do {
                    mailbox.post(.token(try await fresh(), why: nil, refresh: refresh))
                } catch {
                    mailbox.post(.token(nil, why: "the token function failed: \(error)", refresh: refresh))
                }
            }
        case .send(let bytes):
            socket?.send(bytes)
        case .disconnect:
            socket?.close(code: .normal, reason: "bye")
        case .state(let s):
            owner?.setState(s)
        case .retry(let after):
            client.schedule(afterMicroseconds: Int64(after * 1e6)) { [weak self] in self?.handle(.retry) }
        case .tick(let after):
            client.schedule(afterMicroseconds: Int64(after * 1e6)) { [weak self] in self?.handle(.tick) }
        case .resolve(let ticket, let rev):
            callers.removeValue(forKey: ticket)?.resume(returning: rev)
        case .reject(let ticket, let error):
            callers.removeValue(forKey: ticket)?.resume(throwing: error)
        case .ready(let name):
            guard let board = boards[name] else { return }
            for c in waiting.removeValue(forKey: name) ?? [] { c.resume(returning: board) }
        case .refused(let name, let error):
            for c in waiting.removeValue(forKey: name) ?? [] { c.resume(throwing: error) }
            if boards[name]?.rev == nil { boards[name] = nil }
        case .show(let name, let state, let confirmed, let position):
            boards[name]?.update(state: state, confirmed: confirmed, position: position)
        case .change(let name, let change):
            boards[name]?.publish(change)
        case .presence(let name, let viewers, let following):
            boards[name]?.update(viewers: viewers, following: following)
        case .deleted:
            break
        case .tokenFailed(let why):
            owner?.reportTokenFailure(why)
        case .finished:
            for board in boards.values { board.finish() }
            client.stop()
        }
    }

    // MARK: WebClientDelegate

    func opened(_ s: ClientSocket) {}

    func received(_ s: ClientSocket, _ message: [UInt8]) {
        guard s === socket, let event = ServerEvent.decode(message) else { return }
        handle(.received(event))
    }

    func closed(_ s: ClientSocket, _ reason: ClientCloseReason) {
        guard s === socket else { return }
        socket = nil
        var status: Int?
        if case .refused(let code) = reason { status = code }
        handle(.closed(reason: "\(reason)", status: status))
    }

    func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {
        fetches.removeValue(forKey: id)?.resume(with: result.mapError { $0 as Error })
    }

    /// The loop ended (after `close()`): the GETs under way, and those
    /// posted since the last drain, get no answer.
    func endFetches(leftover: [SyncCommand]) {
        let gone = SyncError(code: "disconnected", message: "the client is closed")
        for c in fetches.values { c.resume(throwing: gone) }
        fetches = [:]
        for case .fetch(_, let c) in leftover { c.resume(throwing: gone) }
    }

    func woken() {
        for command in mailbox.drain() {
            switch command {
            case .subscribe(let name, let c):
                guard let owner else { c.resume(throwing: SyncError(code: "closed", message: "the client is closed")); continue }
                if boards[name] == nil { boards[name] = SyncBoard(name: name, client: owner) }
                waiting[name, default: []].append(c)
                handle(.subscribe(name))
            case .act(let ticket, let board, let action, let ifRev, let c):
                callers[ticket] = c
                handle(.act(ticket, board: board, action: action, ifRev: ifRev))
            case .cancel(let ticket):
                handle(.cancel(ticket))
            case .view(let f):
                handle(.view(following: f))
            case .close:
                handle(.close)
            case .fetch(let endpoint, let c):
                let headers = HistoryRequest.headers(token: machine.bearer).map { ($0.name, $0.value) }
                fetches[client.fetch(endpoint, headers: headers)] = c
            case .token(let token, let why, let refresh):
                handle(.token(token, failure: why, refresh: refresh))
            }
        }
    }
}
