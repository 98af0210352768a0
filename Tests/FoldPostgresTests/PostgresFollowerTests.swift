import FoldCore
@testable import FoldPostgres
import PostgresTestSupport
import Testing

/// What a follower reports against a real server: the log rows whenever
/// they are there, so a node fans out patches, never a snapshot in their place.
@Suite struct PostgresFollowerTests {
    func change(_ rev: Int) -> CommitBatch {
        var b = CommitBatch(historyLimit: 100)
        b.boards = [StoredBoard(name: "x", epoch: "e", rev: rev, state: Array(#"{"n":\#(rev)}"#.utf8))]
        b.changes = [StoredChange(board: "x", rev: rev, ops: Array(#"[{"op":"replace","path":"/n","value":\#(rev)}]"#.utf8))]
        return b
    }

    func store() throws -> (String, PostgresStore) {
        let uri = try PostgresServer.shared().createDatabase()
        let store = try PostgresStore(uri: uri)
        #expect(try store.createIfAbsent(StoredBoard(name: "x", epoch: "e", rev: 0, state: Array(#"{"n":0}"#.utf8))))
        try store.commit(change(1))
        return (uri, store)
    }

    /// The hub asks for a catch-up at the rev it holds (a deferred one, after
    /// its own commit): nothing moved, so nothing but the answer comes back.
    @Test func aCatchUpAtTheHeadReportsNoChange() throws {
        let (uri, _) = try store()
        let follower = PostgresFollower(uri: uri, timeoutMs: 5_000, positions: ["x": ("e", 1)])
        let u = try follower.catchUp(board: "x", epoch: "e", after: 1)
        guard case .changes("x", "e", let missed)? = u.first, u.count == 1 else {
            Issue.record("expected no change, got \(u)")
            return
        }
        #expect(missed.isEmpty)
    }

    /// The interleaving that sent a snapshot to a cluster's subscribers: the
    /// head is read at rev 1, another node commits rev 2, then the read runs.
    /// Rev 2 is in the log and must come as its change, by the next scan.
    @Test func aCommitLandingAfterTheHeadWasReadComesAsItsChange() throws {
        let (uri, store) = try store()
        let follower = PostgresFollower(uri: uri, timeoutMs: 5_000, positions: ["x": ("e", 1)])
        try store.commit(change(2))
        let u = try follower.using { c throws(PGError) in try PostgresFollower.read("x", after: ("e", 1), to: ("e", 1), on: c) }
        guard case .changes("x", "e", let none) = u, none.isEmpty else {
            Issue.record("expected no change up to the head read, got \(u)")
            return
        }
        let next = try follower.next(waitMs: 0)
        guard case .changes("x", "e", let missed)? = next.first, next.count == 1 else {
            Issue.record("expected rev 2 as a change, got \(next)")
            return
        }
        #expect(missed.map(\.rev) == [2])
    }
}
