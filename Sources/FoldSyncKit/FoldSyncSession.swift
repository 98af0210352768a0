import FoldCore
import FoldSession
import Foundation
import Observation

/// A live connection to foldsyncd for apps: boards as observable models
/// (`BoardModel`), actions answered with their rev, kept in the outbox while
/// offline and shown at once, reconnection with the shared backoff, resume
/// with `since`, and `suspend()` / `resume()` for an app's background and
/// foreground. A shell over `SessionMachine` (FoldSession) and a
/// `SyncTransport`: every decision is the machine's, this class only
/// carries them out.
///
/// Main actor: the models it feeds are what views read, and one actor keeps
/// the machine's outputs in order without locks.
@MainActor @Observable
public final class FoldSyncSession {
    public let url: URL
    /// Where the connection stands.
    public private(set) var state: SyncState = .connecting
    /// Why the token provider last failed, if it did (the session goes on without a token).
    public private(set) var lastTokenFailure: String?

    @ObservationIgnored private let transport: any SyncTransport
    @ObservationIgnored private let token: TokenSource
    @ObservationIgnored private var machine: SessionMachine
    @ObservationIgnored private var link: (any SyncLink)?
    /// Counts links, so that a message or an end from a link already replaced is ignored.
    @ObservationIgnored private var linkNumber = 0
    @ObservationIgnored private var models: [String: BoardModel] = [:]
    @ObservationIgnored private var waiting: [String: [CheckedContinuation<BoardModel, Error>]] = [:]
    @ObservationIgnored private var callers: [SessionMachine.Ticket: CheckedContinuation<Int, Error>] = [:]
    @ObservationIgnored private var tickets: SessionMachine.Ticket = 0
    @ObservationIgnored private var stateListeners: [UUID: AsyncStream<SyncState>.Continuation] = [:]
    @ObservationIgnored private let started = ContinuousClock.now

    /// Connects (and keeps connecting) to `url` (`ws://HOST:PORT/ws`).
    /// `outbox`: how many actions, and how long, wait for a connection.
    public init(url: URL, token: TokenSource = .none, outbox: OutboxLimits = OutboxLimits(),
                transport: any SyncTransport = URLSessionTransport()) {
        self.url = url
        self.token = token
        self.transport = transport
        var random = SystemRandomNumberGenerator()
        let id = String(random.next() as UInt64, radix: 16)
        machine = SessionMachine(clientID: String(repeating: "0", count: 16 - id.count) + id, token: token.mode, limits: outbox)
        handle(.start)
    }

    /// Every state from now on.
    public func states() -> AsyncStream<SyncState> {
        AsyncStream { continuation in
            let id = UUID()
            stateListeners[id] = continuation
            continuation.onTermination = { _ in Task { @MainActor [weak self] in self?.stateListeners[id] = nil } }
        }
    }

    /// Subscribes (again after every reconnect) and returns the board's
    /// model once its snapshot is here; the same model on every call.
    public func board(_ name: String) async throws -> BoardModel {
        if models[name] == nil { models[name] = BoardModel(name: name, session: self) }
        return try await withCheckedThrowingContinuation { c in
            waiting[name, default: []].append(c)
            handle(.subscribe(name))
        }
    }

    /// Follow the board's folds and focus (true, the default) or browse on your own (`view`).
    public func follow(_ following: Bool) { handle(.view(following: following)) }

    /// The app goes to the background (iOS drops its sockets there): the
    /// connection closes cleanly, the outbox and the boards are kept, and
    /// nothing reconnects until `resume()`.
    public func suspend() { handle(.suspend) }

    /// The app is back: connect at once and resume every board with `since`;
    /// the outbox goes out once they are resubscribed.
    public func resume() { handle(.resume) }

    /// For good: actions still in the outbox fail with `closed`.
    public func close() { handle(.close) }

    /// Any action on `board`; kept in the outbox until answered. A cancelled
    /// task's action is taken back when unsent, else settled; either way it
    /// throws `expired` unless it had been applied (then it returns its rev).
    func perform(_ action: Action, on board: String, ifRev: Int?) async throws -> Int {
        tickets += 1
        let ticket = tickets
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { c in
                callers[ticket] = c
                handle(.act(ticket, board: board, action: action, ifRev: ifRev))
            }
        } onCancel: {
            Task { @MainActor [weak self] in self?.handle(.cancel(ticket)) }
        }
    }

    /// `GET /api/boards/NAME/history` beside the socket, through the
    /// transport, with the session's token (the value, or the provider's
    /// last). Any failure is a `SyncError`: the daemon's code, or
    /// `disconnected` when no answer came.
    func history(_ request: HistoryRequest) async throws(SyncError) -> HistoryPage {
        guard let address = request.url(besideSocket: url.absoluteString), let target = URL(string: address) else {
            throw SyncError(code: "bad_request", message: "no HTTP API beside '\(url.absoluteString)'")
        }
        var headers: [String: String] = [:]
        for h in HistoryRequest.headers(token: machine.bearer) { headers[h.name] = h.value }
        let answer: HTTPAnswer
        do {
            answer = try await transport.get(target, headers: headers)
        } catch {
            throw SyncError(code: "disconnected", message: "GET \(address) failed: \(error)")
        }
        return try request.decode(status: answer.status, body: answer.body)
    }

    private var now: Double {
        let d = ContinuousClock.now - started
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private func handle(_ input: SessionMachine.Input) {
        for output in machine.handle(input, now: now, random: Double.random(in: 0...1)) { carryOut(output) }
    }

    private func carryOut(_ output: SessionMachine.Output) {
        switch output {
        case .connect(let bearer, _):
            linkNumber += 1
            let number = linkNumber
            let opened = transport.open(url, subprotocol: "foldsync.v1", headers: bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:])
            link = opened
            Task { [weak self] in
                do {
                    for try await text in opened.incoming { self?.received(text, on: number) }
                    self?.ended(.closed(code: nil, reason: ""), on: number)
                } catch {
                    self?.ended(error as? SyncLinkEnd ?? .failed("\(error)"), on: number)
                }
            }
        case .askToken(let refresh):
            guard case .provider(let fresh) = token else { return }
            Task { [weak self] in
                do {
                    let value = try await fresh()
                    self?.handle(.token(value, failure: nil, refresh: refresh))
                } catch {
                    self?.handle(.token(nil, failure: "the token function failed: \(error)", refresh: refresh))
                }
            }
        case .send(let bytes):
            link?.send(String(decoding: bytes, as: UTF8.self))
        case .disconnect:
            link?.close(reason: "bye")
        case .state(let s):
            state = s
            for c in stateListeners.values { c.yield(s) }
            if s == .closed { for c in stateListeners.values { c.finish() } }
        case .retry(let seconds):
            after(seconds) { $0.handle(.retry) }
        case .tick(let seconds):
            after(seconds) { $0.handle(.tick) }
        case .resolve(let ticket, let rev):
            callers.removeValue(forKey: ticket)?.resume(returning: rev)
        case .reject(let ticket, let error):
            callers.removeValue(forKey: ticket)?.resume(throwing: error)
        case .ready(let name):
            guard let model = models[name] else { return }
            for c in waiting.removeValue(forKey: name) ?? [] { c.resume(returning: model) }
        case .refused(let name, let error):
            for c in waiting.removeValue(forKey: name) ?? [] { c.resume(throwing: error) }
            if models[name]?.rev == nil { models[name] = nil }
        case .show(let name, let state, let confirmed, let position):
            models[name]?.show(state: state, confirmed: confirmed, position: position)
        case .change(let name, let change):
            models[name]?.publish(change)
        case .presence(let name, let viewers, let following):
            models[name]?.presence(viewers: viewers, following: following)
        case .deleted(let name):
            models[name]?.show(state: nil, confirmed: nil, position: nil)
        case .tokenFailed(let why):
            lastTokenFailure = why
        case .finished:
            link = nil
            for model in models.values { model.finish() }
        }
    }

    private func after(_ seconds: Double, _ then: @escaping @MainActor (FoldSyncSession) -> Void) {
        Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            if let self { then(self) }
        }
    }

    private func received(_ text: String, on number: Int) {
        guard number == linkNumber, let event = ServerEvent.decode(Array(text.utf8)) else { return }
        handle(.received(event))
    }

    private func ended(_ end: SyncLinkEnd, on number: Int) {
        guard number == linkNumber, link != nil else { return }
        link = nil
        handle(.closed(reason: end.description, status: end.status))
    }
}
