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

    /// The WAL is written in full once, at open, so commits overwrite blocks
    /// it has instead of growing it; and what they commit survives a crash:
    /// the files copied while the store is open (as a kill -9 leaves them)
    /// open to every commit, the zeros after the last frame read as its end.
    @Test func theWALIsWrittenOnceAtOpenAndCommitsInItSurviveACrash() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100, reserveWAL: true)
        defer { store.close() }
        let wal = path + "-wal"
        func size() throws -> Int64 { (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.int64Value ?? -1 }
        #expect(store.walBytes == 4 << 20)
        #expect(try size() == store.walBytes)
        var board = Board.initial
        for rev in 1...20 {
            let change = try #require(try board.applying(.setTitle(section: "s0", title: "r\(rev)"), limits: Limits()))
            board = change.board
            var batch = CommitBatch(historyLimit: 100)
            batch.boards = [StoredBoard(name: "b", epoch: "e", rev: rev, state: board.encoded())]
            batch.changes = [StoredChange(board: "b", rev: rev, ops: PatchOp.encode(change.ops))]
            try store.commit(batch)
        }
        #expect(try size() == store.walBytes, "the commits grew the WAL")
        let crash = directory.appendingPathComponent("crash.db").path
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: crash + suffix) }
        let reopened = try SQLiteStore(path: crash)
        defer { reopened.close() }
        #expect(reopened.walBytes == 0, "a one-off open reserves nothing")
        #expect(try reopened.loadBoards().map(\.rev) == [20])
        #expect(try reopened.loadBoards().first?.state == board.encoded())
        #expect(try reopened.loadChanges(board: "b", after: 0).map(\.rev) == Array(1...20))
    }

    /// A store made elsewhere with larger pages gets a WAL sized for its
    /// pages, not for SQLite's default 4 KiB.
    @Test func theReservedWALFollowsThePageSize() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA page_size=16384")
            try db.execute("CREATE TABLE t(x)")
        }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100, reserveWAL: true)
        defer { store.close() }
        #expect(store.walBytes == 16 << 20, "1,000 frames of 16 KiB and their headers, rounded up to a MiB")
        let size = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value
        #expect(size == store.walBytes)
    }

    static let day = 86_400_000

    /// `count` changes of board `b` from rev `from`, committed at `at` in one batch.
    func fill(_ store: SQLiteStore, from: Int, count: Int, at: Int, historyLimit: Int = 10) throws {
        var batch = CommitBatch(historyLimit: historyLimit, now: at, keepMs: Self.day)
        let last = from + count - 1
        batch.boards = [StoredBoard(name: "b", epoch: "e", rev: last, state: Array("{}".utf8))]
        let record = ChangeRecord(actor: "a", session: "http", action: Array("{}".utf8), inverse: Array("[]".utf8), summary: "s")
        batch.changes = (from...last).map { StoredChange(board: "b", rev: $0, ops: Array("[]".utf8), record: record) }
        try store.commit(batch)
    }

    /// Pruning by age removes the oldest changes and keeps the young ones
    /// and the last `historyLimit`, whatever their age.
    @Test func changesOlderThanTheirDaysArePrunedOldestFirst() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        let now = 100 * Self.day
        try fill(store, from: 1, count: 30, at: now - 3 * Self.day)
        #expect(try store.loadChanges(board: "b", after: 0).map(\.rev) == Array(1...30), "none older than a day yet")
        try fill(store, from: 31, count: 30, at: now - Self.day / 2)
        #expect(try store.loadChanges(board: "b", after: 0).map(\.rev) == Array(31...60), "2.5 days older than this commit")
        try fill(store, from: 61, count: 1, at: now)
        #expect(try store.loadChanges(board: "b", after: 0).map(\.rev) == Array(31...61), "young ones stay, beyond the last 10 too")
        try fill(store, from: 62, count: 1, at: now + 2 * Self.day)
        #expect(try store.loadChanges(board: "b", after: 0).map(\.rev) == Array(53...62), "old ones beyond the last 10 go")
    }

    /// A prune must cost what it deletes, not what the history holds (30
    /// days of a busy board is millions of changes): it decodes only the
    /// chunk it cuts. Counted in chunks decoded, not timed.
    @Test func thePruneOfACommitDoesNotReadTheWholeHistory() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        let now = 100 * Self.day
        for from in stride(from: 1, through: 4_951, by: 50) { try fill(store, from: from, count: 50, at: now - 1_000) }
        #expect(store.chunksDecodedByLastPrune == 1, "the first chunk is young: nothing goes")
        #expect(try store.loadChanges(board: "b", after: 0).count == 5_000)
        try fill(store, from: 5_001, count: 1, at: now + Self.day)
        #expect(store.chunksDecodedByLastPrune == 1, "99 chunks go by their columns, the 100th is read and cut")
        #expect(try store.loadChanges(board: "b", after: 0).map(\.rev) == Array(4_992...5_001))
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
