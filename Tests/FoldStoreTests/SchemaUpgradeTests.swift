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
