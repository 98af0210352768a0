import FoldCore
import FoldTransport
import Foundation

/// The authoritative state and everything that happens to it: sessions,
/// subscriptions, actions, the commit pipeline, fan-out.
///
/// Service thread only, apart from `inbox`, which other threads append to
/// through `mailbox` (the only cross-thread path lws allows).
final class Hub {
    var config: DaemonConfig
    var logger: Logger
    let notifier: Notifier
    /// Why the last reload was refused, shown in STATUS= until one succeeds.
    var reloadError: String?
    let server: WebServer
    var committer: Committer!
    let mailbox: Mailbox
    let metrics = Metrics()
    var web: StaticFiles

    var boards: [String: BoardState] = [:]
    var sessions: [UInt64: Session] = [:]
    /// Subscribers by board name; a name may be watched while its board is deleted.
    var subscribers: [String: [UInt64: Session]] = [:]

    // The group-commit pipeline: `pending` collects while `inFlight` is being written.
    var pending: [PendingEntry] = []
    var inFlight: (id: UInt64, entries: [PendingEntry])?
    var nextBatchID: UInt64 = 1
    /// Set when a commit failed: writes are refused until a probe succeeds.
    var storeFault: String?

    var presenceDirty: Set<String> = []
    var presenceTimerArmed = false
    var stalled: Set<UInt64> = []
    var unauthenticated: Set<UInt64> = []
    var authTimerArmed = false
    var connectionsPerIP: [String: Int] = [:]
    var stallTimerArmed = false
    var stopping = false

    init(config: DaemonConfig, logger: Logger, server: WebServer, notifier: Notifier, loaded: [BoardState]) {
        self.config = config
        self.notifier = notifier
        self.logger = logger
        self.server = server
        self.web = StaticFiles(root: config.webRoot, logger: logger)
        self.mailbox = Mailbox(waker: server.waker)
        for b in loaded { boards[b.name] = b }
    }

    static func nowNs() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    var boardCount: Int { boards.values.count { $0.head != nil } }
}

extension Hub: WebServerDelegate {
    func opened(_ connection: Connection) {
        let s = Session(connection: connection, burst: config.actionBurst, now: Self.nowNs())
        sessions[connection.id] = s
        if countsPerIP(s.peerIP) {
            s.countedPerIP = true
            connectionsPerIP[s.peerIP, default: 0] += 1
        }
        metrics.connectionsOpened += 1
        logger.debug("connection \(s.name) from \(connection.peer)\(connection.batching ? " (batching)" : "")")
        connection.send(OutFrame(ServerMessage.hello(server: "foldsyncd/\(DaemonVersion.string)", session: s.name)))
        authenticateOnOpen(s)
        connection.forgetUpgradeHeaders()
    }

    func received(_ connection: Connection, _ message: UnsafeRawBufferPointer) {
        guard let s = sessions[connection.id] else { return }
        handle(message, from: s)
    }

    func closed(_ connection: Connection) {
        guard let s = sessions.removeValue(forKey: connection.id) else { return }
        for name in s.subscriptions { removeSubscriber(s, from: name) }
        stalled.remove(connection.id)
        unauthenticated.remove(connection.id)
        if s.countedPerIP, let n = connectionsPerIP[s.peerIP] { connectionsPerIP[s.peerIP] = n > 1 ? n - 1 : nil }
        logger.debug("connection \(s.name) closed")
    }

    func request(_ request: HTTPRequest) {
        route(request)
    }

    func woken() {
        for e in mailbox.drain() {
            switch e {
            case .commit(let outcome): commitFinished(outcome)
            case .stop: beginShutdown()
            case .reload(let config): reload(config)
            case .reloadRefused(let why): reloadRefused(why)
            }
        }
    }

    func drained(_ connection: Connection) {
        if let s = sessions[connection.id], s.stalledSinceNs != nil {
            s.stalledSinceNs = nil
            stalled.remove(connection.id)
        }
    }
}
