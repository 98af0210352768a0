import FoldCore
import FoldHub
import FoldPostgres
import FoldTransport
import Foundation

/// The thread that follows a shared PostgreSQL store: it wakes on NOTIFY (or
/// every `waitMs` regardless, since notifications can be lost), reads what
/// other daemons committed and posts it to the hub as `remote` input.
final class Follower: Sendable {
    private let source: Locked<PostgresFollowerBox>
    private let requests = Locked<[(board: String, epoch: String, after: Int)]>([])
    private let stopped = Locked(false)
    private let done = DispatchSemaphore(value: 0)
    private let post: @Sendable (RemoteUpdate) -> Void
    private let logger: Logger
    static let waitMs: Int32 = 200

    init(uri: String, timeoutMs: Int, boards: [LoadedBoard], logger: Logger, post: @escaping @Sendable (RemoteUpdate) -> Void) {
        var positions: [String: (epoch: String, rev: Int)] = [:]
        for b in boards { positions[b.name] = (b.epoch, b.rev) }
        source = Locked(PostgresFollowerBox(PostgresFollower(uri: uri, timeoutMs: timeoutMs, positions: positions)))
        self.post = post
        self.logger = logger
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "foldsync-follower"
        thread.start()
    }

    /// Any thread: read this board again (the hub's `catchUp`).
    func catchUp(board: String, epoch: String, after: Int) {
        requests.withLock { $0.append((board, epoch, after)) }
    }

    func stop(timeout: Double) {
        stopped.withLock { $0 = true }
        _ = done.wait(timeout: .now() + timeout)
    }

    private func loop() {
        var failing = false
        while !stopped.withLock({ $0 }) {
            let asked = requests.withLock { r in defer { r.removeAll() }; return r }
            let read = source.withLock { box in
                Result { () throws(StoreError) -> [PostgresFollower.Update] in
                    var updates: [PostgresFollower.Update] = []
                    for a in asked { updates += try box.follower.catchUp(board: a.board, epoch: a.epoch, after: a.after) }
                    return updates + (try box.follower.next(waitMs: Self.waitMs))
                }
            }
            do throws(StoreError) {
                let updates = try read.get()
                if failing { logger.info("following the shared store again") }
                failing = false
                for u in updates { if let r = Self.remote(u, logger: logger) { post(r) } }
            } catch {
                if !failing { logger.warning("cannot follow the shared store: \(error.description)") }
                failing = true
                // Asked-for boards are asked again once the store answers.
                requests.withLock { $0.insert(contentsOf: asked, at: 0) }
                usleep(500_000)
            }
        }
        done.signal()
    }

    static func remote(_ u: PostgresFollower.Update, logger: Logger) -> RemoteUpdate? {
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
