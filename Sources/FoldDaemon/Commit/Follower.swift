import FoldSystem
import FoldCore
import FoldHub
import FoldPostgres
import FoldTransport
import Dispatch
import FoundationEssentials
import Glibc

/// The thread that follows a shared PostgreSQL store: it wakes on NOTIFY (or
/// every `waitMs` regardless, since notifications can be lost), reads what
/// other daemons committed and posts it to the hub as `remote` input.
final class Follower: Service, Sendable {
    private let source: Locked<PostgresFollowerBox>
    private let requests = Locked<[(board: String, epoch: String, after: Int)]>([])
    private let stopped = Locked(false)
    private let done = DispatchSemaphore(value: 0)
    private let post: @Sendable (RemoteUpdate) -> Void
    private let logger: Logger
    static let waitMs: Int32 = 200
    /// This daemon in the heartbeat rows: host, pid and a random part (a restarted daemon is a new node).
    let node: String
    /// This node's viewers per board, and whether they changed since the last beat.
    private let local = Locked<(counts: [String: ViewerCount], dirty: Bool)>(([:], false))
    /// What `/metrics` shows of the follower: its reconnects and the heads it last read.
    let figures = Locked(StoreFigures())
    /// Heartbeat: rows renewed every `beatSeconds`, valid for `ttlSeconds`, so
    /// a dead node drops out of every count within `ttlSeconds` plus one read.
    static let beatSeconds = 3.0, ttlSeconds = 10, readSeconds = 1.0
    /// A test hook: other nodes' commits reach the hub this much later
    /// (`FOLDSYNCD_TEST_FOLLOWER_LAG_MS`), so a test can hold a node's copy
    /// stale on purpose. Unset in production.
    private let lagMs: UInt32 = ProcessInfo.processInfo.environment["FOLDSYNCD_TEST_FOLLOWER_LAG_MS"].flatMap { UInt32($0) } ?? 0

    init(uri: String, timeoutMs: Int, catalog: [CatalogEntry], logger: Logger, post: @escaping @Sendable (RemoteUpdate) -> Void) {
        var positions: [String: (epoch: String, rev: Int)] = [:]
        for b in catalog { positions[b.name] = (b.epoch, b.rev) }
        source = Locked(PostgresFollowerBox(PostgresFollower(uri: uri, timeoutMs: timeoutMs, positions: positions)))
        self.post = post
        self.logger = logger
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        node = "\(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)):\(getpid()):\(Hub.newEpoch().prefix(6))"
    }

    let name = "foldsync-follower"

    func start() {
        SystemThread.start(name: name) { [self] in loop() }
    }

    /// Any thread: read this board again (the hub's `catchUp`).
    func catchUp(board: String, epoch: String, after: Int) {
        requests.withLock { $0.append((board, epoch, after)) }
    }

    /// Any thread: this node's viewer count of a board (the hub's `sharePresence`).
    func share(board: String, _ count: ViewerCount) {
        local.withLock { l in
            guard l.counts[board] != count else { return }
            l.counts[board] = count
            l.dirty = true
        }
    }

    func stop(deadline: ContinuousClock.Instant) -> Bool {
        stopped.withLock { $0 = true }
        return done.wait(until: deadline)
    }

    /// Sleeps `seconds`, in slices, so that `stop` is not kept waiting.
    private func pause(_ seconds: Double) {
        let end = DispatchTime.now() + seconds
        while DispatchTime.now() < end && !stopped.withLock({ $0 }) { usleep(50_000) }
    }

    /// When the last beat was written and the other nodes' counts read (seconds, monotonic).
    private struct PresenceClock {
        var beat = -Double.infinity, read = -Double.infinity
        var posted: [String: ViewerCount]?
    }

    /// Beats when a count changed or the rows are due for renewal; reads the
    /// others' counts when one announced a change or every `readSeconds`.
    private func presence(_ follower: PostgresFollower, _ clock: inout PresenceClock) throws(StoreError) -> [String: ViewerCount]? {
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        let (counts, dirty) = local.withLock { ($0.counts, $0.dirty) }
        if dirty || now - clock.beat >= Self.beatSeconds {
            try follower.beat(node: node, counts: counts.mapValues { ($0.viewers, $0.following) }, ttlSeconds: Self.ttlSeconds, announce: dirty)
            local.withLock { l in
                l.dirty = l.dirty && l.counts != counts
                // Written as 0 (the row is gone): no need to keep the board.
                for (b, n) in counts where n.viewers == 0 && l.counts[b] == n { l.counts[b] = nil }
            }
            clock.beat = now
        }
        guard follower.takePresenceHeard() || now - clock.read >= Self.readSeconds else { return nil }
        clock.read = now
        let others = try follower.presence(excluding: node).mapValues { ViewerCount(viewers: $0.viewers, following: $0.following) }
        guard others != clock.posted else { return nil }
        clock.posted = others
        return others
    }

    private func loop() {
        var failing = false
        var clock = PresenceClock()
        var backoff = Backoff(base: 0.25, cap: 5)
        while !stopped.withLock({ $0 }) {
            let asked = requests.withLock { r in defer { r.removeAll() }; return r }
            let read = source.withLock { box in
                Result { () throws(StoreError) -> ([StoreUpdate], [String: ViewerCount]?) in
                    var updates: [StoreUpdate] = []
                    for a in asked { updates += try box.follower.catchUp(board: a.board, epoch: a.epoch, after: a.after) }
                    defer {
                        let heads = box.follower.heads.mapValues { BoardHead(epoch: $0.epoch, rev: $0.rev) }
                        let reconnects = box.follower.reconnects
                        figures.withLock { $0 = StoreFigures(reconnects: reconnects, heads: heads) }
                    }
                    updates += try box.follower.next(waitMs: Self.waitMs)
                    return (updates, try presence(box.follower, &clock))
                }
            }
            do throws(StoreError) {
                let (updates, viewers) = try read.get()
                if failing { logger.info("following the shared store again") }
                failing = false
                if lagMs > 0 && !updates.isEmpty { usleep(lagMs * 1000) }
                for u in updates { if let r = Self.remote(u, logger: logger) { post(r) } }
                if let viewers { post(.presence(viewers)) }
                backoff.reset()
            } catch {
                if !failing { logger.warning("cannot follow the shared store: \(error.description)") }
                failing = true
                // Asked-for boards are asked again once the store answers.
                requests.withLock { $0.insert(contentsOf: asked, at: 0) }
                pause(backoff.next(random: .random(in: 0..<1)))
            }
        }
        source.withLock { box in
            do throws(StoreError) { try box.follower.leave(node: node) } catch { logger.debug("presence rows left to expire: \(error.description)") }
        }
        done.signal()
    }

    static func remote(_ u: StoreUpdate, logger: Logger) -> RemoteUpdate? {
        switch u {
        case .changes(let board, let epoch, let changes): return .changes(board: board, epoch: epoch, changes)
        case .deleted(let board): return .deleted(board: board)
        case .board(let stored):
            do {
                let board = try Board(trusted: JSONParser.parse(stored.state, maxDepth: 256))
                return .snapshot(board: stored.name, epoch: stored.epoch, rev: stored.rev, state: board)
            } catch {
                logger.error("board '\(stored.name)' in the shared store is unreadable and is skipped: \(error)")
                return nil
            }
        }
    }
}

/// The follower and its connection, handed to the follower thread whole.
final class PostgresFollowerBox: @unchecked Sendable {
    let follower: PostgresFollower
    init(_ follower: PostgresFollower) { self.follower = follower }
}
