import FoldCore
import Foundation
import Testing
@testable import FoldStore

/// The SQLite engine on a real file in a fresh temporary directory per test,
/// and its one checker: every status that is not OK, ROW or DONE throws.
@Suite struct SQLiteStoreTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("foldstore-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("store.db").path }

    @Test func aBatchRoundTripsAndHistoryIsPruned() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        var batch = CommitBatch(historyLimit: 2)
        batch.boards = [StoredBoard(name: "b", epoch: "e", rev: 3, state: Array("{}".utf8))]
        batch.changes = (1...3).map { StoredChange(board: "b", rev: $0, ops: Array("[]".utf8)) }
        try store.commit(batch)
        #expect(try store.loadBoards() == batch.boards)
        // Rev 3 with two kept: rev 1 is pruned.
        #expect(try store.loadChanges(board: "b", after: 0).map(\.rev) == [2, 3])
        try store.probe()
    }

    @Test func aBindOutOfRangeThrows() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = try SQLiteDatabase(path: path)
        let statement = try db.prepare("SELECT ?1")
        try statement.bind(1, "fine")
        #expect(throws: StoreError.self) { try statement.bind(2, "past the last parameter") }
        #expect(throws: StoreError.self) { try statement.bind(0, 1) }
        #expect(throws: StoreError.self) { try statement.bind(3, blob: [1, 2]) }
    }

    @Test func theCheckerPassesOnlySuccess() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = try SQLiteDatabase(path: path)
        for code in [SQLiteResultCode.ok, .row, .done] {
            #expect(try db.check(code.rawValue, "ok") == code)
        }
        // SQLITE_IOERR_FSYNC, an extended code: SQLITE_IOERR | 4 << 8.
        let fsync = SQLiteResultCode(rawValue: SQLiteResultCode.ioError.rawValue | 4 << 8)
        for code in [SQLiteResultCode.busy, .full, .range, fsync] {
            #expect(throws: StoreError.self) { try db.check(code.rawValue, "fails") }
            #expect(!code.isSuccess)
        }
    }
}
