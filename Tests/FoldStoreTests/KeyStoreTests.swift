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
}
