import FoldCore
import Foundation
import FoldTestSupport
import Testing
@testable import FoldStore

/// A store written by the first release (schema 1, no user_version) is
/// upgraded in place at open, every board, rev, epoch and resume point
/// intact; a store from a newer release is refused.
@Suite struct SchemaUpgradeTests {
    let directory: URL
    var path: String { directory.appendingPathComponent("store.db").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("foldstore-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func writeReleaseOneStore() throws {
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute(ReleaseOneStore.sqliteSchema)
        try db.execute(ReleaseOneStore.sqliteData)
        db.close()
    }

    /// Schema 2 exactly as the release that wrote it (the change log keyed by (board, rev), WITHOUT ROWID).
    static let schemaTwo = """
        CREATE TABLE boards(
            name TEXT PRIMARY KEY, epoch TEXT NOT NULL, rev INTEGER NOT NULL, state BLOB NOT NULL);
        CREATE TABLE changes(
            board TEXT NOT NULL, rev INTEGER NOT NULL, ops BLOB NOT NULL,
            at INTEGER NOT NULL DEFAULT 0, actor TEXT NOT NULL DEFAULT '', session TEXT NOT NULL DEFAULT '',
            action BLOB, inverse BLOB, summary TEXT NOT NULL DEFAULT '',
            PRIMARY KEY(board, rev)) WITHOUT ROWID;
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta(key, value) VALUES('schema', '2');
        PRAGMA user_version = 2;
        INSERT INTO boards VALUES('default', 'ep', 2, '{"mode":"multi","sections":[{"id":"s1","title":"A","items":[],"expanded":true}]}');
        INSERT INTO changes VALUES('default', 1, '[{"op":"replace","path":"/sections/0/title","value":"A"}]', 5, 'alice', 'c1',
            '{"type":"setTitle","section":"s1","title":"A"}',
            '[{"op":"test","path":"/sections/0/id","value":"s1"},{"op":"test","path":"/sections/0/title","value":"A"},{"op":"replace","path":"/sections/0/title","value":"1"}]',
            'title of s1 ''1'' → ''A''');
        INSERT INTO changes VALUES('default', 2, '[{"op":"replace","path":"/sections/0/expanded","value":true}]', 6, 'bob', 'http',
            '{"type":"toggle","section":"s1"}',
            '[{"op":"test","path":"/sections/0/id","value":"s1"},{"op":"test","path":"/sections/0/expanded","value":true},{"op":"replace","path":"/sections/0/expanded","value":false}]',
            'toggle s1 → expanded ''A''');
        """

    /// A schema-2 store: every record intact (the full inverses it stored still read as they
    /// were), and new changes stored compact beside them.
    @Test func aSchemaTwoStoreIsRebuiltWithEveryRecordIntact() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute(Self.schemaTwo)
        db.close()
        let store = try SQLiteStore(path: path)
        #expect(store.upgradedSchema?.from == 2 && store.upgradedSchema?.to == SQLiteSchema.version)
        let h = try store.history(board: "default", HistoryQuery(.latest, limit: 10))
        #expect(h.map(\.rev) == [1, 2] && h.map { $0.record?.actor } == ["alice", "bob"] && h.map { $0.record?.at } == [5, 6])
        #expect(h[1].record?.summary == "toggle s1 → expanded 'A'")
        let stored = try #require(h[1].record?.inverse)
        let undo = try #require(FieldUndo.inverse(stored: stored, forward: h[1].ops))
        #expect(undo.last == .replace(path: "/sections/0/expanded", value: .bool(false)))
        #expect(try store.loadChanges(board: "default", after: 1).map(\.rev) == [2])
        var batch = CommitBatch(historyLimit: 10, now: 7, keepMs: 0)
        let before = try Board(json: JSONParser.parse(Array(#"{"mode":"multi","sections":[{"id":"s1","title":"A","items":[],"expanded":true}]}"#.utf8)), limits: Limits())
        let ops: [PatchOp] = [.replace(path: "/sections/0/title", value: .string("B"))]
        let compact = try #require(FieldUndo.encode(ops, before: before))
        batch.boards = [StoredBoard(name: "default", epoch: "ep", rev: 3, state: Array(#"{"mode":"multi","sections":[{"id":"s1","title":"B","items":[],"expanded":true}]}"#.utf8))]
        batch.changes = [StoredChange(board: "default", rev: 3, ops: PatchOp.encode(ops),
                                      record: ChangeRecord(actor: "carol", session: "c2", action: Array(#"{"type":"setTitle"}"#.utf8),
                                                           inverse: compact, summary: "t"))]
        try store.commit(batch)
        store.close()
        let again = try SQLiteStore(path: path)
        let all = try again.history(board: "default", HistoryQuery(.latest, limit: 10))
        #expect(all.map(\.rev) == [1, 2, 3])
        #expect(FieldUndo.inverse(stored: all[2].record!.inverse, forward: all[2].ops)?.last == .replace(path: "/sections/0/title", value: .string("A")))
    }

    @Test func aReleaseOneStoreIsUpgradedInPlaceWithEverythingIntact() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeReleaseOneStore()
        let store = try SQLiteStore(path: path)
        #expect(store.openedVersion == 1)
        let boards = try store.loadBoards()
        #expect(boards.map(\.name) == ["default", "ops"])
        #expect(boards.map(\.epoch) == ["00000000000000aa", "00000000000000bb"])
        #expect(boards.map(\.rev) == [3, 0])
        #expect(String(decoding: boards[0].state, as: UTF8.self).contains(#""title":"Today""#))
        // The resume points: the kept changes, with their ops, byte for byte.
        let changes = try store.loadChanges(board: "default", after: 0)
        #expect(changes.map(\.rev) == [2, 3])
        #expect(String(decoding: changes[1].ops, as: UTF8.self) == #"[{"op":"replace","path":"/sections/0/expanded","value":true}]"#)
        // Read as history, they have no record (written before history was kept).
        #expect(try store.history(board: "default", HistoryQuery(.latest, limit: 10)).map(\.record) == [nil, nil])
        // New changes carry their record.
        var batch = CommitBatch(historyLimit: 10, now: 1_000, keepMs: 0)
        batch.boards = [StoredBoard(name: "default", epoch: "00000000000000aa", rev: 4, state: boards[0].state)]
        batch.changes = [StoredChange(board: "default", rev: 4, ops: Array("[]".utf8),
                                      record: ChangeRecord(actor: "alice", session: "c1", action: Array(#"{"type":"toggle"}"#.utf8), inverse: Array("[]".utf8), summary: "toggle"))]
        try store.commit(batch)
        store.close()

        let db = try SQLiteDatabase(path: path)
        #expect(try SQLiteSchema.storedVersion(db) == SQLiteSchema.version)
        let meta = try db.prepare("SELECT value FROM meta WHERE key = 'schema'")
        #expect(try meta.step() && meta.text(0) == String(SQLiteSchema.version))
        meta.reset()
        let again = try SQLiteStore(path: path)
        #expect(again.openedVersion == SQLiteSchema.version)
        let h = try again.history(board: "default", HistoryQuery(.since(3), limit: 10))
        #expect(h.map(\.rev) == [4] && h.first?.record?.actor == "alice" && h.first?.record?.at == 1_000)
    }

    @Test func aStoreFromANewerReleaseIsRefusedAndLeftAlone() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeReleaseOneStore()
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA user_version = 99")
        db.close()
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(error?.schemaTooNew == true)
        #expect(error?.description.contains("newer foldsyncd") == true, "\(error?.description ?? "")")
        let check = try SQLiteDatabase(path: path)
        #expect(try SQLiteSchema.storedVersion(check) == 99)
    }

    @Test func aFreshFileGetsTheCurrentSchema() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path)
        #expect(store.openedVersion == 0)
        store.close()
        #expect(try SQLiteSchema.storedVersion(SQLiteDatabase(path: path)) == SQLiteSchema.version)
    }

    @Test func closingCheckpointsAndRemovesTheWAL() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path)
        var batch = CommitBatch(historyLimit: 10)
        batch.boards = [StoredBoard(name: "b", epoch: "e", rev: 1, state: Array("{}".utf8))]
        try store.commit(batch)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        store.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        // The .db alone, copied elsewhere, holds the board.
        let copy = directory.appendingPathComponent("copy.db").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(try SQLiteStore(path: copy).loadBoards().map(\.rev) == [1])
    }
}

/// History read back with its records, paged, and pruned in the commit by
/// age (an injected commit time) once past the count kept whatever the age.
@Suite struct SQLiteHistoryTests {
    @Test func historyIsReadBackAndPrunedByAgeAndCount() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldstore-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("h.db").path)
        defer { store.close() }
        let day = 86_400_000
        for rev in 1...4 {
            var batch = CommitBatch(historyLimit: 1, now: rev * day, keepMs: 2 * day)
            batch.boards = [StoredBoard(name: "a", epoch: "e", rev: rev, state: Array("{}".utf8))]
            batch.changes = [StoredChange(board: "a", rev: rev, ops: Array("[]".utf8), record: ChangeRecord(
                actor: "alice", session: "c\(rev)", action: Array(#"{"type":"toggle","section":"s0"}"#.utf8),
                inverse: Array("[]".utf8), summary: "toggle s0"))]
            try store.commit(batch)
        }
        let all = try store.history(board: "a", HistoryQuery(.latest, limit: 10))
        #expect(all.map(\.rev) == [2, 3, 4])
        #expect(all.last?.record?.at == 4 * day && all.last?.record?.session == "c4")
        #expect(try store.history(board: "a", HistoryQuery(.since(2), limit: 1)).map(\.rev) == [3])
        #expect(try store.history(board: "a", HistoryQuery(.before(4), limit: 1)).map(\.rev) == [3])
    }
}
