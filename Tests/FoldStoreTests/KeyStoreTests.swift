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

    /// A fresh store turned into one of schema `version`: its key table
    /// as `keys` (SQL) makes it, instead of today's.
    func olderStore(version: Int, keys: String) throws {
        try SQLiteStore(path: path, busyTimeoutMs: 100).close()
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        try db.execute("DROP TABLE key_packs;\n" + keys + "UPDATE meta SET value = '\(version)' WHERE key = 'schema'; PRAGMA user_version = \(version);")
    }

    /// A schema-5 store (keys filed by board, rev and key) comes up with its
    /// keys in the order they were written, and goes on pruning them.
    @Test func aSchemaFiveStoreKeepsItsKeys() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try olderStore(version: 5, keys: """
            CREATE TABLE keys(
                board TEXT NOT NULL, rev INTEGER NOT NULL, key TEXT NOT NULL, fingerprint INTEGER NOT NULL, at INTEGER NOT NULL,
                PRIMARY KEY(board, rev, key)) WITHOUT ROWID;
            INSERT INTO keys VALUES('b', 2, 'second', 7, 2000), ('b', 1, 'first', 7, 1000), ('a', 5, 'other', 8, 1500);
            """)
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        #expect(store.upgradedSchema?.from == 5 && store.upgradedSchema?.to == SQLiteSchema.version)
        #expect(try store.loadKeys() == [StoredKey(board: "a", key: "other", rev: 5, fingerprint: 8, at: 1500),
                                         StoredKey(board: "b", key: "first", rev: 1, fingerprint: 7, at: 1000),
                                         StoredKey(board: "b", key: "second", rev: 2, fingerprint: 7, at: 2000)])
        try store.commit(batch(128, keys: ["new"], now: 3_600_000 * 3))
        #expect(try store.loadKeys().map(\.key) == ["other", "new"], "b's old keys pruned past both bounds, a's left alone")
    }

    /// A schema-6 store (a row a key, in the order written) comes up with
    /// its keys in packs: a board's consecutive rows of one commit time in
    /// one, every key, rev, void key and fingerprint as it was.
    @Test func aSchemaSixStoreKeepsItsKeysInPacks() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try olderStore(version: 6, keys: """
            CREATE TABLE keys(
                board TEXT NOT NULL, key TEXT NOT NULL, rev INTEGER NOT NULL, fingerprint INTEGER NOT NULL, at INTEGER NOT NULL);
            INSERT INTO keys VALUES('b', 'one', 1, 7, 1000), ('b', 'two', 2, -7, 1000), ('a', 'other', 5, 8, 1000),
                ('b', 'void', -1, 0, 1000), ('b', 'three', 300, 9223372036854775807, 2000);
            """)
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        #expect(store.upgradedSchema?.from == 6 && store.upgradedSchema?.to == SQLiteSchema.version)
        #expect(try store.loadKeys() == [StoredKey(board: "a", key: "other", rev: 5, fingerprint: 8, at: 1000),
                                         StoredKey(board: "b", key: "one", rev: 1, fingerprint: 7, at: 1000),
                                         StoredKey(board: "b", key: "two", rev: 2, fingerprint: -7, at: 1000),
                                         StoredKey(board: "b", key: "void", rev: -1, fingerprint: 0, at: 1000),
                                         StoredKey(board: "b", key: "three", rev: 300, fingerprint: .max, at: 2000)])
        store.close()
        #expect(try packs() == [["one", "two"], ["other"], ["void"], ["three"]])
    }

    /// The keys of each pack, in rowid order.
    func packs() throws -> [[String]] {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        let rows = try db.prepare("SELECT keys FROM key_packs ORDER BY rowid")
        defer { rows.reset() }
        var out: [[String]] = []
        while try rows.step() { out.append(try #require(KeyPack.decode(rows.blob(0))).map(\.key.string)) }
        return out
    }

    /// A commit writes a pack a board, at the end of the table whatever the
    /// boards: one commit's packs have consecutive rowids.
    @Test func aCommitsKeysAreWrittenTogether() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        for round in 1...3 {
            var b = CommitBatch(historyLimit: 100, now: round)
            b.boards = (0..<20).map { StoredBoard(name: "b\($0)", epoch: "e", rev: round, state: Array("{}".utf8)) }
            b.changes = (0..<20).map { StoredChange(board: "b\($0)", rev: round, ops: Array("[]".utf8)) }
            // Two keys a board, the boards interleaved: b0, b1, ..., b19, b0, b1, ...
            b.keys = (0..<40).map { StoredKey(board: "b\($0 % 20)", key: "k\(round)-\($0)", rev: round, fingerprint: 1) }
            try store.commit(b)
        }
        store.close()
        let db = try SQLiteDatabase(path: path)
        let rows = try db.prepare("SELECT rowid, board FROM key_packs ORDER BY rowid")
        var boards: [String] = []
        var rowids: [Int] = []
        while try rows.step() {
            rowids.append(rows.int(0))
            boards.append(rows.text(1))
        }
        rows.reset()
        db.close()
        #expect(boards == (1...3).flatMap { _ in (0..<20).map { "b\($0)" } })
        #expect(rowids == Array(rowids.first!..<(rowids.first! + 60)))
        #expect(try packs() == (1...3).flatMap { r in (0..<20).map { ["k\(r)-\($0)", "k\(r)-\($0 + 20)"] } })
    }

    /// A pack stays while any of its keys is kept, and goes with the last.
    @Test func aPackGoesWithItsLastKey() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        try store.commit(batch(1, keys: ["a", "b", "c"], now: 1_000))
        try store.commit(batch(2, keys: ["d"], now: 2_000))
        var forget = batch(3, keys: [], now: 3_000)
        forget.forgottenKeys = [KeyName(board: "b", key: "a", rev: 1), KeyName(board: "b", key: "b", rev: 1)]
        try store.commit(forget)
        #expect(try packs() == [["a", "b", "c"], ["d"]], "c still kept: its pack stays")
        forget.forgottenKeys = [KeyName(board: "b", key: "c", rev: 1)]
        try store.commit(forget)
        #expect(try packs() == [["d"]])
        store.close()
        let reopened = try SQLiteStore(path: path, busyTimeoutMs: 100)
        #expect(try reopened.loadKeys().map(\.key) == ["d"])
        reopened.close()
    }
}

/// The keys of a board's packs as forgetting and pruning see them.
@Suite struct KeyQueuesTests {
    func rows(_ pack: Int, _ revs: ClosedRange<Int>, at: Int) -> [KeyQueues.Row] {
        revs.map { .init(pack: pack, hash: PackedKey("k\($0)").hash, rev: $0, at: at) }
    }

    @Test func aPackLeavesWithItsLastKeyWhetherForgottenOrPruned() {
        var q = KeyQueues()
        // Ten packs of ten keys on "b": pack p holds revs 10p+1...10p+10, written at 100p.
        for p in 0..<10 { q.wrote(board: "b", rows(p + 1, (10 * p + 1)...(10 * p + 10), at: 100 * p)) }
        q.wrote(board: "c", [.init(pack: 50, hash: PackedKey("void").hash, rev: -1, at: 5)])
        #expect(q.packs == 11 && q.count == 101)
        #expect((1...9).compactMap { q.forget(board: "b", key: PackedKey("k\($0)")) }.isEmpty, "pack 1 still holds k10")
        #expect(q.forget(board: "b", key: PackedKey("k10")) == 1)
        #expect(q.forget(board: "b", key: PackedKey("k55")) == nil, "not the oldest: found where it is")
        #expect(q.forget(board: "b", key: PackedKey("absent")) == nil)
        // Past the age bound up to 350 (packs 2...4) and the history bound at rev 35: revs 11...35.
        #expect(q.prune(board: "b", olderThan: 350, maxRev: 35) == [2, 3])
        #expect(q.prune(board: "b", olderThan: 350, maxRev: 35).isEmpty, "taken off")
        // Pack 6 lost k55 before: it goes with the rest of its keys.
        #expect(q.prune(board: "b", olderThan: 10_000, maxRev: 60) == [4, 5, 6])
        #expect(q.prune(board: "c", olderThan: 6, maxRev: 0) == [50], "a void key goes by its age")
        #expect(q.count == 40)
        #expect(q.drop(board: "b") == [7, 8, 9, 10])
        #expect(q.count == 0 && q.packs == 0)
    }
}
