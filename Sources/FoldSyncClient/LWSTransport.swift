import FoldCore
import FoldMailbox
import FoldSyncKit
import FoldSystem
import FoldTransport
import Foundation

/// FoldSyncKit's `SyncTransport` on libwebsockets, for Linux (where
/// Foundation's WebSocket task cannot run): a `FoldSyncSession` and its
/// `BoardModel`s work here as on Apple platforms.
///
/// Threading: libwebsockets runs on this transport's own service thread
/// (lws' contract: every `WebClient` and `ClientSocket` call happens
/// there). `open`, `send` and `close` may be called from any thread: they
/// post to the mailbox and wake the loop; what a socket receives goes to
/// its link's stream from the service thread.
public final class LWSTransport: SyncTransport, @unchecked Sendable {
    enum Command: @unchecked Sendable {
        case open(LWSLink, Endpoint, subprotocol: String, headers: [(String, String)])
        case send(LWSLink, [UInt8])
        case close(LWSLink, reason: String)
        case get(Endpoint, headers: [(String, String)], CheckedContinuation<HTTPAnswer, Error>)
        case stop
    }

    private let client: WebClient
    private let mailbox: Mailbox<Command>
    private let router: Router
    /// The loop has ended: a `get` posted now would wait for ever. Set under
    /// the same lock `get` posts under, before the last drain.
    private let ended = Locked(false)

    public init() throws {
        client = WebClient(logger: Logger.silent)
        mailbox = Mailbox<Command>(waker: client.waker)
        router = Router(mailbox: mailbox)
        let started = DispatchSemaphore(value: 0)
        let failure = Locked<TransportError?>(nil)
        let parts = LWSThreadParts(client: client, router: router, mailbox: mailbox, ended: ended)
        let thread = Thread {
            do throws(TransportError) {
                try parts.client.start()
            } catch {
                failure.withLock { $0 = error }
                started.signal()
                return
            }
            parts.client.delegate = parts.router
            parts.router.client = parts.client
            started.signal()
            parts.client.run()
            parts.ended.withLock { $0 = true }
            parts.router.endAll(leftover: parts.mailbox.drain())
        }
        thread.name = "foldsync-lws-transport"
        thread.start()
        started.wait()
        if let error = failure.withLock({ $0 }) { throw SyncError(code: "internal", message: error.description) }
    }

    /// Stops the service thread; every open link ends.
    public func shutdown() { mailbox.post(.stop) }

    deinit { mailbox.post(.stop) }

    public func open(_ url: URL, subprotocol: String, headers: [String: String]) -> any SyncLink {
        let link = LWSLink(mailbox: mailbox)
        guard let endpoint = Endpoint(url: url.absoluteString) else {
            link.end(.failed("'\(url)' is not a ws:// or wss:// URL"))
            return link
        }
        mailbox.post(.open(link, endpoint, subprotocol: subprotocol, headers: headers.map { ($0.key, $0.value) }))
        return link
    }

    /// One GET with lws' client (`WebClient.fetch`) on the service thread:
    /// the answer whatever its status; `SyncLinkEnd.failed` when none came.
    public func get(_ url: URL, headers: [String: String]) async throws -> HTTPAnswer {
        guard let endpoint = Endpoint(url: url.absoluteString) else { throw SyncLinkEnd.failed("'\(url)' is not an http:// or https:// URL") }
        let list = headers.map { ($0.key, $0.value) }
        return try await withCheckedThrowingContinuation { c in
            let posted = ended.withLock { ended -> Bool in
                if !ended { mailbox.post(.get(endpoint, headers: list, c)) }
                return !ended
            }
            if !posted { c.resume(throwing: SyncLinkEnd.failed("the transport stopped")) }
        }
    }

    /// The delegate on the service thread: sockets to their links.
    final class Router: WebClientDelegate {
        let mailbox: Mailbox<Command>
        weak var client: WebClient?
        private var links: [ObjectIdentifier: (socket: ClientSocket, link: LWSLink)] = [:]
        private var fetches: [UInt64: CheckedContinuation<HTTPAnswer, Error>] = [:]

        init(mailbox: Mailbox<Command>) { self.mailbox = mailbox }

        func opened(_ s: ClientSocket) {}

        func received(_ s: ClientSocket, _ message: [UInt8]) {
            links[ObjectIdentifier(s)]?.link.yield(String(decoding: message, as: UTF8.self))
        }

        func closed(_ s: ClientSocket, _ reason: ClientCloseReason) {
            guard let entry = links.removeValue(forKey: ObjectIdentifier(s)) else { return }
            switch reason {
            case .failed(let why): entry.link.end(.failed(why))
            case .refused(let status): entry.link.end(.refused(status: status))
            case .closed(let code, let why): entry.link.end(.closed(code: code.map { Int($0.rawValue) }, reason: why))
            }
        }

        func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {
            guard let c = fetches.removeValue(forKey: id) else { return }
            switch result {
            case .success(let reply): c.resume(returning: HTTPAnswer(status: reply.status, body: reply.body))
            case .failure(let error): c.resume(throwing: SyncLinkEnd.failed(error.description))
            }
        }

        func woken() {
            guard let client else { return }
            for command in mailbox.drain() {
                switch command {
                case .open(let link, let endpoint, let subprotocol, let headers):
                    let socket = client.connect(endpoint, subprotocols: [subprotocol], headers: headers)
                    links[ObjectIdentifier(socket)] = (socket, link)
                    link.socketID = ObjectIdentifier(socket)
                case .send(let link, let bytes):
                    if let id = link.socketID { links[id]?.socket.send(bytes) }
                case .close(let link, let reason):
                    if let id = link.socketID { links[id]?.socket.close(code: .normal, reason: reason) }
                case .get(let endpoint, let headers, let c):
                    fetches[client.fetch(endpoint, headers: headers)] = c
                case .stop:
                    client.stop()
                }
            }
        }

        /// The loop ended: whatever was open is gone, and what was asked is not answered.
        func endAll(leftover: [Command]) {
            for entry in links.values { entry.link.end(.failed("the transport stopped")) }
            links = [:]
            for c in fetches.values { c.resume(throwing: SyncLinkEnd.failed("the transport stopped")) }
            fetches = [:]
            for case .get(_, _, let c) in leftover { c.resume(throwing: SyncLinkEnd.failed("the transport stopped")) }
        }
    }
}

/// One libwebsockets connection as a `SyncLink`.
final class LWSLink: SyncLink, @unchecked Sendable {
    let incoming: AsyncThrowingStream<String, Error>
    private let continuation: AsyncThrowingStream<String, Error>.Continuation
    private let mailbox: Mailbox<LWSTransport.Command>
    /// Service thread only.
    var socketID: ObjectIdentifier?

    init(mailbox: Mailbox<LWSTransport.Command>) {
        self.mailbox = mailbox
        (incoming, continuation) = AsyncThrowingStream.makeStream()
    }

    func yield(_ text: String) { continuation.yield(text) }
    func end(_ end: SyncLinkEnd) { continuation.finish(throwing: end) }
    func send(_ text: String) { mailbox.post(.send(self, Array(text.utf8))) }
    func close(reason: String) { mailbox.post(.close(self, reason: reason)) }
}

/// The loop and its delegate, handed once to the thread that becomes the service thread.
private struct LWSThreadParts: @unchecked Sendable {
    let client: WebClient
    let router: LWSTransport.Router
    let mailbox: Mailbox<LWSTransport.Command>
    let ended: Locked<Bool>
}
