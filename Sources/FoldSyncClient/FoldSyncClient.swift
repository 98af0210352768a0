@_exported import FoldCore
@_exported import FoldSession
import FoldMailbox
import FoldSystem
import FoldTransport
import Foundation

/// A live connection to foldsyncd for Swift programs (the library product
/// `FoldSyncClient`): boards mirrored and kept equal to the daemon's,
/// actions answered with their rev, reconnection with the shared backoff
/// and resume with `since` — the contract of docs/CLIENTS.md.
///
/// Threading: the client runs libwebsockets on a thread of its own (the
/// service thread, lws' contract). Public methods may be called from any
/// thread or task: they post a command to the mailbox and wake the loop
/// (`lws_cancel_service`); answers come back through continuations.
public final class FoldSyncClient: @unchecked Sendable {
    public let url: String
    let endpoint: Endpoint
    let token: TokenSource
    let mailbox: Mailbox<SyncCommand>
    let client: WebClient
    private let connection: SyncConnection
    private let stateBox = Locked<SyncState>(.connecting)
    private let stateListeners = Locked<[AsyncStream<SyncState>.Continuation]>([])

    /// Connects (and keeps connecting) to `url` (`ws://HOST:PORT/ws`).
    /// `outbox`: how many actions, and how long, wait for a connection.
    public init(url: String, token: TokenSource = .none, outbox: OutboxLimits = OutboxLimits()) throws {
        guard let endpoint = Endpoint(url: url) else { throw SyncError(code: "bad_request", message: "'\(url)' is not a ws:// or wss:// URL") }
        self.url = url
        self.endpoint = endpoint
        self.token = token
        client = WebClient(logger: Logger.silent)
        mailbox = Mailbox<SyncCommand>(waker: client.waker)
        var random = SystemRandomNumberGenerator()
        let id = String(random.next() as UInt64, radix: 16)
        connection = SyncConnection(machine: SessionMachine(clientID: String(repeating: "0", count: 16 - id.count) + id, token: token.mode, limits: outbox),
                                    client: client, endpoint: endpoint, token: token, mailbox: mailbox)
        connection.owner = self
        let started = DispatchSemaphore(value: 0)
        let failure = Locked<TransportError?>(nil)
        let parts = ServiceThreadParts(client: client, connection: connection, mailbox: mailbox, ended: loopEnded)
        let thread = Thread {
            let client = parts.client, connection = parts.connection
            do throws(TransportError) {
                try client.start()
            } catch {
                failure.withLock { $0 = error }
                started.signal()
                return
            }
            client.delegate = connection
            started.signal()
            connection.begin()
            client.run()
            parts.ended.withLock { $0 = true }
            connection.endFetches(leftover: parts.mailbox.drain())
        }
        thread.name = "foldsync-client"
        thread.start()
        started.wait()
        if let error = failure.withLock({ $0 }) { throw SyncError(code: "internal", message: error.description) }
    }

    public var state: SyncState { stateBox.withLock { $0 } }

    /// Every state from now on.
    public func states() -> AsyncStream<SyncState> {
        AsyncStream { c in stateListeners.withLock { $0.append(c) } }
    }

    /// Subscribes (again after every reconnect) and returns the board once its snapshot arrived.
    public func subscribe(_ board: String) async throws -> SyncBoard {
        try await withCheckedThrowingContinuation { c in mailbox.post(.subscribe(board, c)) }
    }

    /// Follow the board's folds and focus (true, the default) or browse on your own (`view`).
    public func follow(_ following: Bool) { mailbox.post(.view(following)) }

    /// Closes the connection; actions still in the outbox fail with `closed`, nothing reconnects.
    public func close() { mailbox.post(.close) }

    /// Kept in the outbox until answered. A cancelled task's action is
    /// taken back when unsent, else settled; either way it throws `expired`
    /// unless it had been applied (then it returns its rev).
    func perform(_ action: Action, on board: String, ifRev: Int?) async throws -> Int {
        let ticket = tickets.withLock { n -> UInt64 in n += 1; return n }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { c in mailbox.post(.act(ticket, board, action, ifRev, c)) }
        } onCancel: {
            mailbox.post(.cancel(ticket))
        }
    }
    private let tickets = Locked<UInt64>(0)

    /// `GET /api/boards/NAME/history` beside the socket, with lws' HTTP
    /// client on the service thread and the connection's token (the value,
    /// or the provider's last). A `SyncError`: the daemon's code, or
    /// `disconnected` when no answer came (also after `close()`).
    func history(_ request: HistoryRequest) async throws(SyncError) -> HistoryPage {
        guard let address = request.url(besideSocket: url), let target = Endpoint(url: address) else {
            throw SyncError(code: "bad_request", message: "no HTTP API beside '\(url)'")
        }
        let answer: HTTPReply
        do {
            answer = try await withCheckedThrowingContinuation { (c: CheckedContinuation<HTTPReply, Error>) in
                let posted = loopEnded.withLock { ended -> Bool in
                    if !ended { mailbox.post(.fetch(target, c)) }
                    return !ended
                }
                if !posted { c.resume(throwing: SyncError(code: "disconnected", message: "the client is closed")) }
            }
        } catch let e as SyncError {
            throw e
        } catch {
            throw SyncError(code: "disconnected", message: "GET \(address) failed: \(error)")
        }
        return try request.decode(status: answer.status, body: answer.body)
    }
    /// The service thread's loop has ended: nothing posted now is read. Set
    /// under the lock `history` posts under, before the last drain.
    private let loopEnded = Locked(false)

    /// Why the token function last failed, if it did (the connection goes on without a token).
    public var lastTokenFailure: String? { tokenFailure.withLock { $0 } }
    private let tokenFailure = Locked<String?>(nil)

    // Service thread.

    func reportTokenFailure(_ why: String) { tokenFailure.withLock { $0 = why } }

    func setState(_ s: SyncState) {
        stateBox.withLock { $0 = s }
        for c in stateListeners.withLock({ $0 }) { c.yield(s) }
        if s == .closed { for c in stateListeners.withLock({ $0 }) { c.finish() } }
    }
}

/// The loop and its delegate, handed once to the thread that becomes the
/// service thread; from then on only that thread touches them.
private struct ServiceThreadParts: @unchecked Sendable {
    let client: WebClient
    let connection: SyncConnection
    let mailbox: Mailbox<SyncCommand>
    let ended: Locked<Bool>
}

/// What a caller's thread hands the service thread.
enum SyncCommand: @unchecked Sendable {
    case subscribe(String, CheckedContinuation<SyncBoard, Error>)
    case act(UInt64, String, Action, Int?, CheckedContinuation<Int, Error>)
    case cancel(UInt64)
    case view(Bool)
    case close
    /// `GET` on the HTTP API (the connection adds the token).
    case fetch(Endpoint, CheckedContinuation<HTTPReply, Error>)
    /// The token provider answered (nil: it failed; `why` says so).
    case token(String?, why: String?, refresh: Bool)
}
