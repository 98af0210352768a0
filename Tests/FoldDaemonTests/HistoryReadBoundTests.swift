import FoldCore
import Foundation
import Testing
@testable import FoldDaemon
@testable import FoldHub
@testable import FoldStore

/// A history page for HTTP is read off the event loop a chunk at a time and
/// stops past `HistoryBody.maxPageBytes`: entries may each hold a whole
/// board, so reading `limit` of them first could cost gigabytes.
@Suite struct HistoryReadBoundTests {
    @Test func aPageOfLargeChangesStopsReadingPastItsByteBound() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("f.db").path)
        defer { store.close() }
        // Just under 1 MiB an entry, with its record: four fill a page.
        let big = Array(repeating: UInt8(ascii: "x"), count: (1 << 20) - 64)
        let revs = 80
        var batch = CommitBatch(historyLimit: 1_000)
        batch.boards = [StoredBoard(name: "b", epoch: "e", rev: revs, state: Array("{}".utf8))]
        batch.changes = (1...revs).map { StoredChange(board: "b", rev: $0, ops: big,
            record: ChangeRecord(actor: "a", session: "http", action: Array("{}".utf8), inverse: Array("[]".utf8), summary: "s")) }
        try store.commit(batch)

        for anchor in [HistoryQuery.Anchor.latest, .before(61), .since(10)] {
            let query = HistoryQuery(anchor, limit: HistoryBody.maxLimit)
            let read = try HistoryRead.load(HistoryRead(id: 1, board: "b", query: HistoryQuery(anchor, limit: query.limit + 1)), from: store)
            #expect(read.count <= HistoryRead.readChunk + 1, "\(anchor): \(read.count) entries of 1 MiB read for a 4 MiB page")
            let (entries, more) = HistoryBody.page(read, query)
            #expect(more && entries.count == HistoryBody.maxPageBytes >> 20, "\(anchor): \(entries.map(\.rev))")
            // The page is the one asked for: the newest before the anchor, or the oldest after it.
            let expected: [Int]
            switch anchor {
            case .latest: expected = Array(77...80)
            case .before: expected = Array(57...60)
            case .since: expected = Array(11...14)
            }
            #expect(entries.map(\.rev) == expected, "\(anchor)")
        }
        // Fewer than asked: all of them, in order.
        let all = try HistoryRead.load(HistoryRead(id: 2, board: "b", query: HistoryQuery(.since(75), limit: 101)), from: store)
        #expect(all.map(\.rev) == Array(76...80))
    }
}
