import FoldCore
import FoldTestSupport
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
        try db.execute("DROP TABLE key_commits;\n" + keys + "UPDATE meta SET value = '\(version)' WHERE key = 'schema'; PRAGMA user_version = \(version);")
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
        #expect(try rows() == [["b": ["one", "two"]], ["a": ["other"]], ["b": ["void"]], ["b": ["three"]]])
    }

    /// A schema-7 store (a row a board a commit) comes up with each pack a
    /// row of one group: every key, rev, void key, fingerprint and time as it was.
    @Test func aSchemaSevenStoreKeepsItsKeysInRows() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var b: [UInt8] = [], a: [UInt8] = []
        KeyPack.append(PackedKey("one"), rev: 1, fingerprint: 7, to: &b)
        KeyPack.append(PackedKey("void"), rev: -1, fingerprint: .min, to: &b)
        KeyPack.append(PackedKey("other"), rev: 300, fingerprint: .max, to: &a)
        try olderStore(version: 7, keys: SQLiteSchema.keyPacks + """
            INSERT INTO key_packs VALUES('b', 1000, 2, x'\(Hex.encode(b))'), ('a', 2000, 1, x'\(Hex.encode(a))');
            """)
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        #expect(store.upgradedSchema?.from == 7 && store.upgradedSchema?.to == SQLiteSchema.version)
        #expect(try store.loadKeys() == [StoredKey(board: "a", key: "other", rev: 300, fingerprint: .max, at: 2000),
                                         StoredKey(board: "b", key: "one", rev: 1, fingerprint: 7, at: 1000),
                                         StoredKey(board: "b", key: "void", rev: -1, fingerprint: .min, at: 1000)])
        var forget = batch(2, keys: [], now: 3_000)
        forget.forgottenKeys = [KeyName(board: "a", key: "other", rev: 300)]
        try store.commit(forget)
        store.close()
        #expect(try rows() == [["b": ["one", "void"]]], "a's row went with its key")
    }

    /// The keys of each row of `key_commits`, in rowid order, by board.
    func rows() throws -> [[String: [String]]] {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        let rows = try db.prepare("SELECT keys FROM key_commits ORDER BY rowid")
        defer { rows.reset() }
        var out: [[String: [String]]] = []
        while try rows.step() {
            var row: [String: [String]] = [:]
            for g in try #require(KeyPack.decode(rows.blob(0))) { row[g.board, default: []] += g.entries.map(\.key.string) }
            out.append(row)
        }
        return out
    }

    /// How many rows `key_commits` has, and the keys they were written with.
    func stored() throws -> (rows: Int, keys: Int) {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        let s = try db.prepare("SELECT count(*), coalesce(sum(count), 0) FROM key_commits")
        defer { s.reset() }
        _ = try s.step()
        return (s.int(0), s.int(1))
    }

    /// A commit writes one row, every board's keys in it, in the order
    /// their boards' first keys came.
    @Test func aCommitsKeysAreOneRow() throws {
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
        let s = try db.prepare("SELECT keys FROM key_commits ORDER BY rowid")
        var order: [[String]] = []
        while try s.step() { order.append(try #require(KeyPack.decode(s.blob(0))).map(\.board)) }
        s.reset()
        db.close()
        #expect(order == (1...3).map { _ in (0..<20).map { "b\($0)" } })
        #expect(try rows() == (1...3).map { r in Dictionary(uniqueKeysWithValues: (0..<20).map { ("b\($0)", ["k\(r)-\($0)", "k\(r)-\($0 + 20)"]) }) })
    }

    /// A board gone quiet keeps its keys, but not the rows around them: once
    /// the table holds more dead keys than live ones (and the slack), the
    /// live keys of the oldest mostly dead rows move into a new row with
    /// their times, and the store stays within twice the keys kept. They
    /// are still there after a reopen, in their place.
    @Test func aQuietBoardsKeysDoNotPinTheirRows() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        store.keySlack = 0
        let busy = 64, rounds = 400, cap = 10, quiet = 30
        var forgotten: [KeyName] = []
        var kept: [[String]] = Array(repeating: [], count: busy)
        func round(_ r: Int) throws {
            var b = CommitBatch(historyLimit: 100, now: r)
            b.keyKeepMs = 1
            b.boards = (0..<busy).map { StoredBoard(name: "b\($0)", epoch: "e", rev: r, state: Array("{}".utf8)) }
            b.changes = (0..<busy).map { StoredChange(board: "b\($0)", rev: r, ops: Array("[]".utf8)) }
            b.keys = (0..<busy).map { StoredKey(board: "b\($0)", key: "k\(r)-\($0)", rev: r, fingerprint: 1) }
            if r <= quiet { b.keys.append(StoredKey(board: "quiet", key: "q\(r)", rev: r, fingerprint: 2)) }
            b.forgottenKeys = forgotten
            forgotten = []
            // The hub keeps `cap` keys a busy board and forgets the oldest.
            for i in 0..<busy {
                kept[i].append("k\(r)-\(i)")
                if kept[i].count > cap { forgotten.append(KeyName(board: "b\(i)", key: kept[i].removeFirst(), rev: 0)) }
            }
            try store.commit(b)
        }
        for r in 1...rounds { try round(r) }
        // Kept: `cap` keys a busy board, the last commit's forgotten ones (forgotten at the next), the quiet board's.
        let live = busy * cap + busy + quiet
        let (rowCount, keys) = try stored()
        // Without the rewrite: 30 rows of 65 pinned by one key each, 2,600 keys in all.
        #expect(keys <= 2 * live + busy, "\(keys) keys in \(rowCount) rows for \(live) live")
        // Read from the file: `loadKeys` would build the store's bookkeeping again, as at a start.
        let db = try SQLiteDatabase(path: path)
        let s = try db.prepare("SELECT keys FROM key_commits ORDER BY rowid")
        var quietKeys: [String: Int] = [:]
        while try s.step() {
            for g in try #require(KeyPack.decode(s.blob(0))) where g.board == "quiet" { for e in g.entries { quietKeys[e.key.string] = g.at } }
        }
        s.reset()
        db.close()
        #expect(quietKeys == Dictionary(uniqueKeysWithValues: (1...quiet).map { ("q\($0)", $0) }), "moved keys keep their times")
        // Forgetting moved keys empties their rows once the busy keys beside them are forgotten too.
        forgotten += (1...quiet).map { KeyName(board: "quiet", key: "q\($0)", rev: $0) }
        for r in rounds + 1...rounds + 2 * cap + 1 { try round(r) }
        #expect(try rows().allSatisfy { $0["quiet"] == nil }, "every row the quiet keys stood in is gone or rewritten")
        store.close()
        let reopened = try SQLiteStore(path: path, busyTimeoutMs: 100)
        let again = try reopened.loadKeys()
        #expect(again.filter { $0.board == "quiet" }.isEmpty)
        // A row still kept may also hold keys forgotten since: they come back older than the kept ones, and the hub keeps the newest.
        #expect(again.filter { $0.board == "b0" }.suffix(cap + 1).map(\.key) == (rounds + cap + 1...rounds + 2 * cap + 1).map { "k\($0)-0" })
        reopened.close()
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
        #expect(try rows() == [["b": ["a", "b", "c"]], ["b": ["d"]]], "c still kept: its row stays")
        forget.forgottenKeys = [KeyName(board: "b", key: "c", rev: 1)]
        try store.commit(forget)
        #expect(try rows() == [["b": ["d"]]])
        store.close()
        let reopened = try SQLiteStore(path: path, busyTimeoutMs: 100)
        #expect(try reopened.loadKeys().map(\.key) == ["d"])
        reopened.close()
    }
}

/// The keys of a board's packs as forgetting and pruning see them.
@Suite struct KeyQueuesTests {
    func rows(_ pack: Int, _ revs: ClosedRange<Int>, at: Int) -> [KeyQueues.Key] {
        revs.map { .init(row: pack, hash: PackedKey("k\($0)").hash, rev: $0, at: at) }
    }

    @Test func aPackLeavesWithItsLastKeyWhetherForgottenOrPruned() {
        let q = KeyQueues()
        // Ten packs of ten keys on "b": pack p holds revs 10p+1...10p+10, written at 100p.
        for p in 0..<10 { q.wrote(board: "b", rows(p + 1, (10 * p + 1)...(10 * p + 10), at: 100 * p)) }
        q.wrote(board: "c", [.init(row: 50, hash: PackedKey("void").hash, rev: -1, at: 5)])
        #expect(q.rowCount == 11 && q.count == 101)
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
        #expect(q.count == 0 && q.rowCount == 0)
    }

    /// Rows at most half alive are offered for a rewrite, oldest first, once
    /// the dead keys pass the live ones and the slack; a moved key is
    /// forgotten from its new row.
    @Test func mostlyDeadRowsAreOfferedOldestFirstOnceTheDeadPassTheLive() {
        let q = KeyQueues()
        // Rows 1...4: ten keys of "b" and one of "quiet" each.
        for p in 1...4 {
            q.wrote(board: "b", rows(p, (10 * p + 1)...(10 * p + 10), at: p))
            q.wrote(board: "quiet", [.init(row: p, hash: PackedKey("q\(p)").hash, rev: p, at: p)])
        }
        #expect(q.compactable(limit: 8, slack: 0).isEmpty, "nothing dead")
        // Rows 1...3 keep only their quiet key: 30 dead, 14 live.
        for r in 11...40 { _ = q.forget(board: "b", key: PackedKey("k\(r)")) }
        #expect(q.compactable(limit: 8, slack: 0) == [1, 2, 3])
        #expect(q.compactable(limit: 2, slack: 0) == [1, 2])
        #expect(q.compactable(limit: 8, slack: 100).isEmpty, "within the slack")
        #expect(q.places(board: "quiet", row: 1) == [PackedKey("q1").hash: [0]])
        #expect(q.places(board: "b", row: 1).isEmpty, "b's keys in row 1 are gone")
        q.moved(from: 1, ["quiet": [0]], to: 9)
        #expect(q.count == 14 && q.rowCount == 4)
        #expect(q.forget(board: "quiet", key: PackedKey("q1")) == 9)
    }

    /// A call looks at a bounded number of rows, going on where the last one
    /// stopped: mostly dead rows behind many mostly live ones are reached
    /// over a few commits, not by one scan of them all.
    @Test func theScanForMostlyDeadRowsIsBoundedAndGoesOn() {
        let q = KeyQueues()
        let front = 3 * KeyQueues.scanPerRow
        // Rows 1...front: four keys of "a" each, one of them dead later.
        for p in 1...front { q.wrote(board: "a", (0..<4).map { .init(row: p, hash: PackedKey("a\(p).\($0)").hash, rev: 4 * p + $0, at: p) }) }
        // Two rows behind them: a hundred keys of "b" each, and one of "quiet".
        for p in front + 1...front + 2 {
            q.wrote(board: "b", (0..<100).map { .init(row: p, hash: PackedKey("b\(p).\($0)").hash, rev: $0, at: p) })
            q.wrote(board: "quiet", [.init(row: p, hash: PackedKey("q\(p)").hash, rev: p, at: p)])
        }
        for p in 1...front { _ = q.forget(board: "a", key: PackedKey("a\(p).0")) }
        for p in front + 1...front + 2 { for r in 0..<100 { _ = q.forget(board: "b", key: PackedKey("b\(p).\(r)")) } }
        // Dead: front + 200; live: 3 * front + 2.
        var calls = 0
        var found: [Int] = []
        while found.isEmpty && calls < 10 {
            found = q.compactable(limit: 1, slack: 0)
            calls += 1
        }
        #expect(found == [front + 1])
        #expect(calls == 4, "\(KeyQueues.scanPerRow) rows a call: three calls pass the mostly live rows")
        #expect(q.compactable(limit: 1, slack: 0) == [front + 2], "the next call goes on from there")
    }
}
