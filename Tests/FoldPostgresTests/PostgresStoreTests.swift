import FoldCore
import FoldPostgres
import Foundation
import PostgresTestSupport
import Testing

/// The engine against a real server: what a batch writes is what a new
/// connection reads, history is pruned, and the schema is versioned.
@Suite struct PostgresStoreTests {
    func board(_ name: String, rev: Int, epoch: String = "e1") -> StoredBoard {
        StoredBoard(name: name, epoch: epoch, rev: rev, state: Array(#"{"rev":\#(rev)}"#.utf8))
    }

    @Test func batchesRoundTripAndHistoryIsPruned() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let store = try PostgresStore(uri: uri)
        for rev in 1...5 {
            var batch = CommitBatch(historyLimit: 3)
            batch.boards = [board("a", rev: rev)]
            if rev == 1 { batch.created = ["a"] }
            batch.changes = [StoredChange(board: "a", rev: rev, ops: Array(#"[{"op":"add","path":"/n","value":\#(rev)}]"#.utf8))]
            try store.commit(batch)
        }
        let reopened = try PostgresStore(uri: uri)
        #expect(try reopened.loadBoards() == [board("a", rev: 5)])
        #expect(try reopened.loadCatalog() == [CatalogEntry(name: "a", epoch: "e1", rev: 5)])
        #expect(try reopened.loadChanges(board: "a", after: 0).map(\.rev) == [3, 4, 5])
        // A board read on first use, on a reader's own session: the row and its last changes.
        let reader = try reopened.historyReader()
        let read = try #require(try reader.readBoard("a", history: 2))
        #expect(read.board == board("a", rev: 5) && read.changes.map(\.rev) == [4, 5])
        #expect(try reader.readBoard("none", history: 2) == nil)
        reader.close()
        #expect(try reopened.loadChanges(board: "a", after: 4).map(\.ops) == [Array(#"[{"op":"add","path":"/n","value":5}]"#.utf8)])

        var delete = CommitBatch(historyLimit: 3)
        delete.deletions = ["a"]
        try reopened.commit(delete)
        #expect(try store.loadBoards().isEmpty)
        #expect(try store.loadChanges(board: "a", after: 0).isEmpty)
        try store.probe()
    }

    /// Two boards pruned in one commit, each by its own bound: the oldest
    /// changes go up to the first young one; young ones stay past the last N.
    @Test func eachBoardIsPrunedOldestFirstInOneCommit() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let store = try PostgresStore(uri: uri)
        defer { store.close() }
        let day = 86_400_000, now = 100 * day
        let record = ChangeRecord(actor: "a", session: "http", action: Array("{}".utf8), inverse: Array("[]".utf8), summary: "s")
        func fill(_ name: String, _ revs: ClosedRange<Int>, at: Int, into batch: inout CommitBatch) {
            batch.boards.append(board(name, rev: revs.upperBound))
            batch.changes += revs.map { StoredChange(board: name, rev: $0, ops: Array("[]".utf8),
                                                      record: ChangeRecord(at: at, actor: record.actor, session: record.session,
                                                                           action: record.action, inverse: record.inverse, summary: record.summary)) }
        }
        var old = CommitBatch(historyLimit: 5, now: now - 3 * day, keepMs: day)
        old.created = ["a", "b"]
        fill("a", 1...20, at: now - 3 * day, into: &old)
        fill("b", 1...10, at: now - 3 * day, into: &old)
        try store.commit(old)
        var young = CommitBatch(historyLimit: 5, now: now, keepMs: day)
        fill("a", 21...30, at: now - day / 2, into: &young)
        fill("b", 11...11, at: now, into: &young)
        try store.commit(young)
        // a: 1...20 older than a day go, 21...30 are young (25 and below too); b: only the last 5.
        #expect(try store.loadChanges(board: "a", after: 0).map(\.rev) == Array(21...30))
        #expect(try store.loadChanges(board: "b", after: 0).map(\.rev) == Array(7...11))
    }

    @Test func createIfAbsentCreatesOnce() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let first = try PostgresStore(uri: uri), second = try PostgresStore(uri: uri)
        #expect(try first.createIfAbsent(board("default", rev: 0, epoch: "first")))
        #expect(try !second.createIfAbsent(board("default", rev: 0, epoch: "second")))
        #expect(try second.loadBoards().map(\.epoch) == ["first"])
    }

    @Test func schemaIsVersionedAndANewerOneRefused() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        _ = try PostgresStore(uri: uri)
        #expect(try server.psql(uri, "SELECT value FROM foldsync_meta WHERE key = 'schema'") == "4")
        // Opening again leaves a known schema alone.
        _ = try PostgresStore(uri: uri)
        try server.psql(uri, "UPDATE foldsync_meta SET value = '5' WHERE key = 'schema'")
        #expect {
            _ = try PostgresStore(uri: uri)
        } throws: { error in
            guard case .schemaTooNew(found: 5, known: 4)? = error as? PostgresOpenError else { return false }
            return true
        }
    }

    /// The first release's tables, exactly as its PostgresSchema created them.
    static let releaseOneSchema = """
        CREATE TABLE IF NOT EXISTS foldsync_meta(key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE IF NOT EXISTS foldsync_boards(
            name text PRIMARY KEY, epoch text NOT NULL, rev bigint NOT NULL, state text NOT NULL);
        CREATE TABLE IF NOT EXISTS foldsync_changes(
            board text NOT NULL, epoch text NOT NULL, rev bigint NOT NULL, ops text NOT NULL,
            PRIMARY KEY(board, rev));
        INSERT INTO foldsync_meta(key, value) VALUES('schema', '1');
        INSERT INTO foldsync_boards VALUES('default', 'ep1', 2, '{"mode":"single","sections":[]}');
        INSERT INTO foldsync_changes VALUES('default', 'ep1', 1, '[]'), ('default', 'ep1', 2, '[{"op":"replace","path":"/mode","value":"single"}]');
        """

    @Test func aReleaseOneDatabaseIsUpgradedInPlace() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        try server.psql(uri, Self.releaseOneSchema)
        let store = try PostgresStore(uri: uri)
        #expect(try server.psql(uri, "SELECT value FROM foldsync_meta WHERE key = 'schema'") == "4")
        #expect(try store.loadKeys().isEmpty, "the keys' table is there, empty")
        #expect(try store.loadBoards().map { "\($0.name) \($0.epoch) \($0.rev)" } == ["default ep1 2"])
        #expect(try store.loadChanges(board: "default", after: 0).map(\.rev) == [1, 2])
        #expect(try store.history(board: "default", HistoryQuery(.latest, limit: 5)).map(\.record) == [nil, nil])
    }

    /// History with its records, paged, and pruned by age (an injected commit time) and count.
    @Test func historyIsReadBackAndPrunedByAgeAndCount() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let store = try PostgresStore(uri: uri)
        let day = 86_400_000
        for rev in 1...4 {
            var batch = CommitBatch(historyLimit: 1, now: rev * day, keepMs: 2 * day)
            batch.boards = [board("a", rev: rev)]
            if rev == 1 { batch.created = ["a"] }
            batch.changes = [StoredChange(board: "a", rev: rev, ops: Array("[]".utf8), record: ChangeRecord(
                actor: "alice", session: "c\(rev)", action: Array(#"{"type":"toggle","section":"s0"}"#.utf8),
                inverse: Array("[]".utf8), summary: "toggle s0"))]
            try store.commit(batch)
        }
        // At day 4, keeping 2 days: revs 1 is older; 2, 3, 4 are not (and 4 is the last).
        let all = try store.history(board: "a", HistoryQuery(.latest, limit: 10))
        #expect(all.map(\.rev) == [2, 3, 4])
        #expect(all.last?.record == ChangeRecord(at: 4 * day, actor: "alice", session: "c4", action: Array(#"{"type":"toggle","section":"s0"}"#.utf8),
                                                inverse: Array("[]".utf8), summary: "toggle s0"))
        #expect(try store.history(board: "a", HistoryQuery(.since(2), limit: 1)).map(\.rev) == [3])
        #expect(try store.history(board: "a", HistoryQuery(.before(4), limit: 1)).map(\.rev) == [3])
    }

    /// A server that accepts the connection and never answers (the
    /// handshake hangs): the store gives up by itself with an open error,
    /// after it really connected and asked, no sooner than its timeout, and
    /// closes the connection. Without a bound on the wait it would hang: the
    /// watchdog, far past the timeout, then ends it and the test fails.
    @Test func anUnreachableServerFailsWithinTheTimeout() throws {
        let silent = try SilentServer()
        defer { silent.stop() }
        let timeoutMs = 500
        let outcome = Locked<Result<Void, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let started = Date()
        Thread {
            let r = Result<Void, any Error> { _ = try PostgresStore(uri: "postgresql://foldsync@127.0.0.1:\(silent.port)/none", timeoutMs: timeoutMs) }
            outcome.withLock { $0 = r }
            finished.signal()
        }.start()
        let gaveUp = finished.wait(timeout: .now() + 20) == .success
        let waited = Date().timeIntervalSince(started)
        if !gaveUp {
            silent.stop()  // EOF on its socket ends the wait
            finished.wait()
        }
        #expect(gaveUp, "the store was still waiting for the silent server after 20 s (its timeout: \(timeoutMs) ms)")
        let result = try #require(outcome.withLock { $0 })
        #expect(throws: PostgresOpenError.self) { try result.get() }
        #expect(silent.accepted == 1 && silent.firstReceived >= 8, "the store connected and sent its first message")
        #expect(waited >= Double(timeoutMs) / 1000, "gave up after \(waited) s: before its timeout, so not for want of an answer")
        let closeBy = Date().addingTimeInterval(5)
        while silent.firstClosedAt == nil && Date() < closeBy { usleep(10_000) }
        #expect(silent.firstClosedAt != nil, "the store closed the connection it gave up on")
    }
}

/// Two stores on one database (two daemons): a batch built on a position
/// another one has moved since is refused, never written over it.
@Suite struct PostgresConflictTests {
    func change(_ board: String, _ rev: Int) -> (StoredBoard, StoredChange) {
        (StoredBoard(name: board, epoch: "e", rev: rev, state: Array(#"{"n":\#(rev)}"#.utf8)),
         StoredChange(board: board, rev: rev, ops: Array(#"[{"op":"replace","path":"/n","value":\#(rev)}]"#.utf8)))
    }

    func batch(_ items: [(StoredBoard, StoredChange)]) -> CommitBatch {
        var b = CommitBatch(historyLimit: 100)
        b.boards = items.map(\.0)
        b.changes = items.map(\.1)
        return b
    }

    @Test func aStaleBatchIsRefusedAndLosesNothing() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let a = try PostgresStore(uri: uri), b = try PostgresStore(uri: uri)
        #expect(try a.createIfAbsent(StoredBoard(name: "x", epoch: "e", rev: 0, state: Array(#"{"n":0}"#.utf8))))
        try a.commit(batch([change("x", 1)]))
        // b still believes x is at rev 0: its rev 1 would collide with a's.
        // The refusal says what b missed, read while the row was locked.
        #expect { try b.commit(batch([change("x", 1)])) } throws: { error in
            guard let e = error as? StoreError, e.moved, case .changes("x", "e", let missed)? = e.caughtUp.first else { return false }
            return missed.map(\.rev) == [1] && e.caughtUp.count == 1
        }
        #expect(try b.loadChanges(board: "x", after: 0).map(\.rev) == [1])
        // Built on the real head, it goes through.
        try b.commit(batch([change("x", 2), change("x", 3)].map { $0 }))
        #expect(try a.loadBoards().map(\.rev) == [3])
        #expect(try a.loadChanges(board: "x", after: 0).map(\.rev) == [1, 2, 3])
    }

    /// A write built on a board another node deleted (or re-created) is refused, not a resurrection.
    @Test func aBatchOnADeletedOrRecreatedBoardIsRefused() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let a = try PostgresStore(uri: uri), b = try PostgresStore(uri: uri)
        #expect(try a.createIfAbsent(StoredBoard(name: "x", epoch: "e", rev: 0, state: Array(#"{"n":0}"#.utf8))))
        var gone = CommitBatch(historyLimit: 100)
        gone.deletions = ["x"]
        try a.commit(gone)
        #expect { try b.commit(batch([change("x", 1)])) } throws: { ($0 as? StoreError)?.moved == true }
        #expect(try a.loadBoards().isEmpty)
        #expect(try a.createIfAbsent(StoredBoard(name: "x", epoch: "new", rev: 0, state: Array(#"{"n":0}"#.utf8))))
        #expect { try b.commit(batch([change("x", 1)])) } throws: { ($0 as? StoreError)?.moved == true }
        #expect(try a.loadBoards().map(\.epoch) == ["new"])
    }

    /// Two nodes, each with its own store on its own thread, commit the next
    /// rev at the same moment, round after round (a barrier between reading
    /// the head and committing): exactly one wins each round, the other is
    /// refused as a conflict (never another error, never both in), and the
    /// log holds the winners' changes, one per rev. The rounds whose commits
    /// really overlapped in time are counted and must be a good share.
    @Test func racingNodesNeverShareARev() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let stores = try (0..<2).map { _ in try PostgresStore(uri: uri) }
        defer { stores.forEach { $0.close() } }
        #expect(try stores[0].createIfAbsent(StoredBoard(name: "x", epoch: "e", rev: 0, state: Array(#"{"n":0}"#.utf8))))
        let rounds = 100
        let barrier = Barrier(parties: 2)
        /// Per node and round: its commit's outcome and when it ran.
        struct Attempt { var won = false; var moved = false; var error = ""; var start = 0.0, end = 0.0 }
        let attempts = Locked([[Attempt]](repeating: [Attempt](repeating: Attempt(), count: rounds), count: 2))
        let done = DispatchSemaphore(value: 0)
        for node in 0..<2 {
            Thread {
                defer { done.signal() }
                let s = stores[node]
                for round in 0..<rounds {
                    var a = Attempt()
                    let head = (try? s.loadBoards().first?.rev) ?? -1
                    barrier.arriveAndWait()  // both have read the same head
                    a.start = Self.now()
                    do throws(StoreError) {
                        try s.commit(self.batch([self.change("x", head + 1, by: node)]))
                        a.won = true
                    } catch {
                        a.moved = error.moved
                        a.error = error.description
                    }
                    a.end = Self.now()
                    attempts.withLock { $0[node][round] = a }
                    barrier.arriveAndWait()  // both are done before the next read
                }
            }.start()
        }
        for _ in 0..<2 { #expect(done.wait(timeout: .now() + 60) == .success, "a node never finished") }
        let all = attempts.withLock { $0 }
        var winners: [Int] = []
        var overlapped = 0
        for round in 0..<rounds {
            let (a, b) = (all[0][round], all[1][round])
            let won = [a, b].enumerated().filter { $0.element.won }.map(\.offset)
            #expect(won.count == 1, "round \(round): \(won.count) commits went in")
            for loser in [a, b] where !loser.won {
                #expect(loser.moved, "round \(round): refused, but not as a conflict: \(loser.error)")
            }
            winners.append(won.first ?? -1)
            if a.start < b.end && b.start < a.end { overlapped += 1 }
        }
        let log = try stores[1].loadChanges(board: "x", after: 0)
        #expect(log.map(\.rev) == Array(1...rounds))
        #expect(log.map { String(decoding: $0.ops, as: UTF8.self) } == winners.enumerated().map { self.ops($0.offset + 1, by: $0.element) })
        #expect(try stores[0].loadBoards().map(\.rev) == [rounds])
        // Most rounds overlap on two cores (a commit is several round trips to the
        // server); a fifth is far below what a quiet or loaded machine shows.
        #expect(overlapped >= rounds / 5, "only \(overlapped) of \(rounds) rounds overlapped: the nodes barely raced")
        print("racing nodes: \(overlapped) of \(rounds) rounds overlapped; node 0 won \(winners.filter { $0 == 0 }.count)")
    }

    func ops(_ rev: Int, by node: Int) -> String { #"[{"op":"replace","path":"/n","value":"\#(rev) by \#(node)"}]"# }

    func change(_ board: String, _ rev: Int, by node: Int) -> (StoredBoard, StoredChange) {
        (StoredBoard(name: board, epoch: "e", rev: rev, state: Array(#"{"n":"\#(rev) by \#(node)"}"#.utf8)),
         StoredChange(board: board, rev: rev, ops: Array(ops(rev, by: node).utf8)))
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// Threads meet here: each call returns once `parties` threads have called it (reusable).
final class Barrier: @unchecked Sendable {
    private let parties: Int
    private let condition = NSCondition()
    private var waiting = 0
    private var generation = 0

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        condition.lock()
        defer { condition.unlock() }
        let mine = generation
        waiting += 1
        if waiting == parties {
            waiting = 0
            generation += 1
            condition.broadcast()
            return
        }
        while generation == mine { condition.wait() }
    }
}

/// A value behind a lock, for the threads of one test.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
