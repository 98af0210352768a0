import FoldCore

/// The authoritative state and every decision about it, with no I/O: the
/// sessions, subscriptions, boards, the commit pipeline, fan-out and its
/// bounds, presence, deadlines, rate limits, reload. Each input comes with
/// its time and returns the effects to carry out, in order (`handle`).
///
/// One thread at a time (the daemon's service thread).
public final class Hub {
    public internal(set) var settings: HubSettings
    /// Where log lines go; the level is the settings'.
    private let sink: Logger
    public var logger: Logger { sink.withLevel(settings.logLevel) }
    public internal(set) var metrics = Metrics()
    /// Why the last reload was refused, shown in STATUS= until one succeeds.
    var reloadError: String?

    /// Boards in memory; the others are in `residency`, read on first use.
    var boards: [String: BoardState] = [:]
    var residency = Residency()
    var sessions: [UInt64: Session] = [:]
    /// The `Authorization` header `admit` just proved, and what it proved:
    /// `opened` for the same upgrade comes next and takes it.
    var admitted: (header: String, identity: Identity, secondsLeft: Double?, at: Instant)?
    /// The sessions that are event streams (`Hub+Streams`), for the one check each effect pays.
    var streams: Set<UInt64> = []
    var subscriptions = Subscriptions()
    /// A commit's life (`Commit/CommitPipeline`): written only by its own methods.
    var pipeline: CommitPipeline
    var deadlines = Deadlines()
    /// Sessions per counted peer address: an index of `sessions`, kept for admission.
    var connectionsPerIP: [String: Int] = [:]
    var phase = Phase.serving
    /// Viewers per board on other nodes of a shared store (`RemoteUpdate.presence`).
    var remoteViewers: [String: ViewerCount] = [:]
    /// The action `perform` is queueing (attached to its entry by `enqueue`).
    var currentIntent: Intent? {
        didSet {
            switch currentIntent {
            case .action(let request, _, _): currentKey = request.key
            case .settle(_, let key): currentKey = PackedKey(key)
            default: currentKey = nil
            }
        }
    }
    /// The key of `currentIntent`, hashed once for every look-up and write of it.
    private(set) var currentKey: PackedKey?
    /// The refusals of the request `perform` is applying again after a catch-up (0 for a new one).
    var currentRefusals = 0
    /// Keys the boards forgot (past `actionKeysPerBoard`), for the next batch to delete.
    var forgottenKeys: [KeyName] = []
    /// Where `ActionKey.fingerprint` encodes an action, kept between actions.
    var fingerprintScratch: [UInt8] = []
    /// History reads handed to the reader, by id, and who waits for each.
    var reads: [UInt64: PendingRead] = [:]
    var nextReadID: UInt64 = 1
    /// Revert reads held until their board has committed the rev the revert
    /// was asked at (the reader sees only what is committed).
    var readsAwaitingCommit: [(rev: Int, read: HistoryRead)] = []
    /// History pages read while a batch was written but not yet durable:
    /// sent once that batch is (`after`), so no page shows a change that a
    /// crash could still take back.
    var pagesAwaitingSync: [(after: UInt64, exchange: UInt64, board: String, entries: [UInt8], more: Bool)] = []

    /// The time of the input being handled.
    private(set) var now: Instant = 0
    /// The effects of the input being handled.
    private var out: [HubEffect] = []

    /// How often to feed the service manager's watchdog and refresh its
    /// status line, in seconds; nil when it does not ask.
    let watchdogEvery: Double?
    let statusEvery: Double?
    /// Hashes and compares token secrets (OpenSSL's, in the daemon).
    let digest: any SecretDigest
    /// Where epochs and the probes' jitter come from: the system's generator
    /// in the daemon, a seeded one in tests, so a run replays exactly.
    var random: any RandomNumberGenerator

    /// `loaded`: boards in memory from the start; `catalog`: the store's
    /// other boards (where each stands, and its kept action keys, oldest
    /// first), read when first used.
    public init(settings: HubSettings, logger: Logger, digest: any SecretDigest, boards loaded: [BoardState],
                catalog: [CatalogEntry] = [], keys: [String: [StoredKey]] = [:],
                watchdogEvery: Double? = nil, statusEvery: Double? = nil,
                random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.settings = settings
        self.pipeline = CommitPipeline(shared: settings.storeIsShared)
        self.digest = digest
        self.random = random
        self.watchdogEvery = watchdogEvery
        self.statusEvery = statusEvery
        self.sink = logger
        for b in loaded { boards[b.name] = b }
        var cold: [String: ColdBoard] = [:]
        for e in catalog where boards[e.name] == nil {
            var c = ColdBoard(epoch: e.epoch, rev: e.rev)
            c.keys.remember(keys[e.name] ?? [], cap: settings.retention.actionKeysPerBoard)
            cold[e.name] = c
        }
        residency = Residency(cold)
    }

    /// Handles one input; returns what to do, in order.
    public func handle(_ input: HubInput, at now: Instant) -> [HubEffect] {
        self.now = now
        switch input {
        case .opened(let id, let peer, let headers, let batching): opened(id, peer: peer, headers: headers, batching: batching)
        case .received(let id, let message): if let s = sessions[id] { handle(message, from: s) }
        case .queueDrained(let id): deadlines.remove(.stall(id))
        case .overflowed(let id, let bytes): overflowed(id, bytes: bytes)
        case .closed(let id): if !residency.closed(id) { closed(id) }
        case .http(let request): route(request)
        case .committed(let outcome): commitFinished(outcome)
        case .reload(let fresh): reload(fresh)
        case .reloadRefused(let why): reloadRefused(why)
        case .started: started()
        case .stop: beginShutdown()
        case .tick: tick()
        case .remote(let update): remote(update)
        case .historyRead(let id, let result): historyRead(id, result)
        case .boardRead(let board, let load): boardRead(board, load)
        }
        if !readsAwaitingCommit.isEmpty { releaseReadsAwaitingCommit() }
        checkShutdown()
        // Handed over whole: most inputs (a queue drained) have no effect and then allocate nothing.
        var effects = out
        out = []
        if !effects.isEmpty { FanOutFlush.decide(&effects) }
        return effects
    }

    func emit(_ effect: HubEffect) {
        if !streams.isEmpty, let routed = routedToStreams(effect) {
            out.append(contentsOf: routed)
            return
        }
        out.append(effect)
    }

    /// An effect already split between sockets and streams.
    func emitSplit(_ effect: HubEffect) { out.append(effect) }

    /// Sets a deadline, asking for a wake-up when it is the earliest.
    func arm(_ d: Deadline, at t: Instant) {
        if let wake = deadlines.set(d, at: t) { emit(.wakeAt(wake)) }
    }

    public var boardCount: Int { boards.values.count { $0.head != nil } + residency.cold.count }
    /// Boards whose document is in memory.
    public var boardsInMemory: Int { boards.count }
    public var connectionCount: Int { sessions.count }
    public var storeFault: String? { pipeline.fault }
    /// The committed state of a board, when there is one.
    public func board(_ name: String) -> BoardState? { boards[name].flatMap { $0.committed == nil ? nil : $0 } }

    /// What systemd shows in `systemctl status`: the store by name (never a
    /// password) and, while it refuses writes, why the daemon is not ready.
    public var statusLine: String {
        let store = settings.storeName
        let state = pipeline.fault.map { "not ready: store \(store) refuses writes: \($0)" } ?? "serving from \(store)"
        return "\(state); \(sessions.count) connections, \(boardCount) boards"
            + (reloadError.map { "; last reload refused: \($0)" } ?? "")
    }

    /// How much a connection's queue may hold before fan-out resynchronises it.
    public var queueBound: QueueBound { QueueBound(frames: settings.clients.maxQueueFrames, bytes: settings.clients.maxQueueBytes) }

    /// A fresh epoch: 16 hex digits (outside a hub: start-up, a restored backup).
    public static func newEpoch() -> String {
        var g = SystemRandomNumberGenerator()
        return epoch(g.next())
    }

    /// An epoch from the hub's own source.
    func newEpoch() -> String { Self.epoch(random.next()) }

    /// A number in [0, 1) from the hub's own source.
    func unitRandom() -> Double { Double(random.next() >> 11) / Double(1 << 53) }

    static func epoch(_ n: UInt64) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Instant {
    /// `seconds` later.
    func adding(seconds: Double) -> Instant { self + UInt64(seconds * 1e9) }
}
