import FoldCore
import Foundation
import Testing
@testable import FoldStore

/// Action keys in the SQLite file: written with their batch, read back in
/// age order, forgotten when the hub says so, pruned past both bounds, and
/// gone with their board.
@Suite struct KeyStoreTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("foldstore-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("store.db").path }

    func batch(_ rev: Int, keys: [String], now: Int, keepMs: Int = 3_600_000) -> CommitBatch {
        var b = CommitBatch(historyLimit: 100, now: now)
        b.keyKeepMs = keepMs
        b.boards = [StoredBoard(name: "b", epoch: "e", rev: rev, state: Array("{}".utf8))]
        b.changes = [StoredChange(board: "b", rev: rev, ops: Array("[]".utf8))]
        b.keys = keys.map { StoredKey(board: "b", key: $0, rev: rev, fingerprint: -42) }
        return b
    }

    @Test func keysRoundTripAndArePrunedPastBothBounds() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        try store.commit(batch(1, keys: ["a"], now: 1_000))
        try store.commit(batch(2, keys: ["b"], now: 2_000))
        #expect(try store.loadKeys() == [StoredKey(board: "b", key: "a", rev: 1, fingerprint: -42, at: 1_000),
                                         StoredKey(board: "b", key: "b", rev: 2, fingerprint: -42, at: 2_000)])
        // Rev 64 (keys are pruned every 64 revs) with 100 revs kept: nothing is below them.
        try store.commit(batch(64, keys: ["c"], now: 3_000))
        #expect(try store.loadKeys().map(\.key) == ["a", "b", "c"])
        // Rev 128 hours later: "a" and "b" are old and below the last 100 revs; "c" (rev 64) stays for its rev.
        try store.commit(batch(128, keys: ["d"], now: 3_000 + 3_600_001))
        #expect(try store.loadKeys().map(\.key) == ["c", "d"])
        var forget = batch(129, keys: [], now: 3_600_000 * 2)
        forget.forgottenKeys = [KeyName(board: "b", key: "c", rev: 64)]
        try store.commit(forget)
        #expect(try store.loadKeys().map(\.key) == ["d"])
        store.close()
        let reopened = try SQLiteStore(path: path, busyTimeoutMs: 100)
        #expect(try reopened.loadKeys().map(\.key) == ["d"], "durable")
        var delete = CommitBatch(historyLimit: 2, now: 1)
        delete.deletions = ["b"]
        try reopened.commit(delete)
        #expect(try reopened.loadKeys().isEmpty)
    }

    /// A schema-5 store (keys filed by board, rev and key) comes up with its
    /// keys in the order they were written, and goes on pruning them.
    @Test func aSchemaFiveStoreKeepsItsKeys() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let fresh = try SQLiteStore(path: path, busyTimeoutMs: 100)
        fresh.close()
        let db = try SQLiteDatabase(path: path)
        try db.execute("""
            DROP TABLE keys;
            CREATE TABLE keys(
                board TEXT NOT NULL, rev INTEGER NOT NULL, key TEXT NOT NULL, fingerprint INTEGER NOT NULL, at INTEGER NOT NULL,
                PRIMARY KEY(board, rev, key)) WITHOUT ROWID;
            INSERT INTO keys VALUES('b', 2, 'second', 7, 2000), ('b', 1, 'first', 7, 1000), ('a', 5, 'other', 8, 1500);
            UPDATE meta SET value = '5' WHERE key = 'schema';
            PRAGMA user_version = 5;
            """)
        db.close()
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        #expect(store.upgradedSchema?.from == 5 && store.upgradedSchema?.to == SQLiteSchema.version)
        #expect(try store.loadKeys() == [StoredKey(board: "a", key: "other", rev: 5, fingerprint: 8, at: 1500),
                                         StoredKey(board: "b", key: "first", rev: 1, fingerprint: 7, at: 1000),
                                         StoredKey(board: "b", key: "second", rev: 2, fingerprint: 7, at: 2000)])
        try store.commit(batch(128, keys: ["new"], now: 3_600_000 * 3))
        #expect(try store.loadKeys().map(\.key) == ["other", "new"], "b's old keys pruned past both bounds, a's left alone")
    }

    /// A commit writes its keys to the end of the table, whatever the boards:
    /// the rowids of one commit's keys are consecutive.
    @Test func aCommitsKeysAreWrittenTogether() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        for round in 1...3 {
            var b = CommitBatch(historyLimit: 100, now: round)
            b.boards = (0..<20).map { StoredBoard(name: "b\($0)", epoch: "e", rev: round, state: Array("{}".utf8)) }
            b.changes = (0..<20).map { StoredChange(board: "b\($0)", rev: round, ops: Array("[]".utf8)) }
            b.keys = (0..<20).map { StoredKey(board: "b\($0)", key: "k\(round)-\($0)", rev: round, fingerprint: 1) }
            try store.commit(b)
        }
        store.close()
        let db = try SQLiteDatabase(path: path)
        let rows = try db.prepare("SELECT rowid, key FROM keys ORDER BY rowid")
        var keys: [String] = []
        var rowids: [Int] = []
        while try rows.step() {
            rowids.append(rows.int(0))
            keys.append(rows.text(1))
        }
        rows.reset()
        #expect(keys == (1...3).flatMap { r in (0..<20).map { "k\(r)-\($0)" } })
        #expect(rowids == Array(rowids.first!..<(rowids.first! + 60)))
    }
}

/// The rows of kept keys, board by board, as pruning and forgetting see them.
@Suite struct KeyQueuesTests {
    @Test func forgettingTakesTheOldestAndPruningStopsAtTheFirstKeptRow() {
        var q = KeyQueues()
        for i in 1...100 { q.wrote(board: "b", .init(rowid: i * 2, key: "k\(i)", rev: i, at: i * 10)) }
        q.wrote(board: "c", .init(rowid: 1, key: "void", rev: -1, at: 5))
        #expect(q.forget(board: "b", key: "k1") == 2)
        #expect(q.forget(board: "b", key: "k50") == 100, "not the oldest: found where it is")
        #expect(q.forget(board: "b", key: "absent") == nil)
        // Past the age bound up to at 400 (rev 39), and the history bound at rev 30: rows of revs 2...30.
        #expect(q.prune(board: "b", olderThan: 400, maxRev: 30) == Array(2...30).map { $0 * 2 })
        #expect(q.prune(board: "b", olderThan: 400, maxRev: 30).isEmpty, "taken off")
        #expect(q.prune(board: "b", olderThan: 1_000_000, maxRev: 60) == (Array(31...49) + Array(51...60)).map { $0 * 2 })
        #expect(q.prune(board: "c", olderThan: 6, maxRev: 0) == [1], "a void key goes by its age")
        #expect(q.count == 40)
        q.drop(board: "b")
        #expect(q.count == 0)
    }
}
