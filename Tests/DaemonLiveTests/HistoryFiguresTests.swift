import FoldCore
import FoldStore
import FoldTestSupport
import Foundation
import Testing

/// Figures for the history and backup (printed as `FIGURE ...` lines, never
/// asserted on): reading 10,000 history entries over HTTP from a live
/// daemon, and `foldsyncd backup` of a 1,000-board store while it runs.
@Suite struct HistoryFiguresTests {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let t = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
    }

    static func ms(_ s: Double) -> String { String(format: "%.1f ms", s * 1000) }

    /// 10,000 changes with their records on one board, written through the engine.
    static func seedHistory(_ path: String, entries: Int) throws {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let ops = PatchOp.encode([.replace(path: "/sections/1/expanded", value: .bool(true))])
        let inverse = PatchOp.encode([.test(path: "/sections/1/id", value: .string("s1")), .replace(path: "/sections/1/expanded", value: .bool(false))])
        for start in stride(from: 1, through: entries, by: 1_000) {
            var batch = CommitBatch(historyLimit: entries, now: Int(Date().timeIntervalSince1970 * 1000), keepMs: 86_400_000)
            let last = min(start + 999, entries)
            batch.boards = [StoredBoard(name: "default", epoch: "00000000000000f1", rev: last, state: Board.initial.encoded())]
            batch.changes = (start...last).map { rev in
                StoredChange(board: "default", rev: rev, ops: ops, record: ChangeRecord(
                    actor: "alice", session: "c\(rev % 7)", action: ChangeSummary.record(.toggle(section: "s1")),
                    inverse: inverse, summary: "toggle s1 → expanded '1'"))
            }
            try store.commit(batch)
        }
    }

    @Test func readingTenThousandHistoryEntries() throws {
        let d = try DaemonProcess.stoppedWithoutStore(["--history-per-board", "10000"])
        defer { d.shutdown() }
        try Self.seedHistory(d.dbPath, entries: 10_000)

        let store = try SQLiteStore(path: d.dbPath)
        var read = 0
        let engine = try Self.seconds {
            var since = 0
            while true {
                let page = try store.history(board: "default", HistoryQuery(.since(since), limit: 1_000))
                guard let last = page.last else { break }
                read += page.count
                since = last.rev
            }
        }
        store.close()
        #expect(read == 10_000)

        try d.restart()
        var bodies: [[UInt8]] = []
        // Timed without the test's own JSON parsing (a debug build's parser would dominate).
        let http = try Self.seconds {
            for page in 0..<10 {
                bodies.append(try d.http("GET", "/api/boards/default/history?since=\(page * 1_000)&limit=1000").body)
            }
        }
        let got = try bodies.reduce(0) { $0 + (try JSONParser.parse($1, maxDepth: 64)["entries"]?.arrayValue?.count ?? 0) }
        let bytes = bodies.reduce(0) { $0 + $1.count }
        #expect(got == 10_000)
        let one = try Self.seconds { _ = try d.http("GET", "/api/boards/default/history?limit=1000") }
        print("FIGURE history: 10,000 entries read from SQLite in pages of 1,000: \(Self.ms(engine)) (engine), \(Self.ms(http)) over HTTP (\(bytes / 1024) KiB); one page of the latest 1,000 over HTTP: \(Self.ms(one))")
    }

    @Test func backingUpAThousandBoardStoreWhileTheDaemonRuns() throws {
        let d = try DaemonProcess.stoppedWithoutStore()
        defer { d.shutdown() }
        let store = try SQLiteStore(path: d.dbPath)
        let board = bigBoard()
        var batch = CommitBatch(historyLimit: 1_000)
        batch.boards = (0..<1_000).map { StoredBoard(name: "wall-\($0)", epoch: "00000000000000aa", rev: 1, state: board.encoded()) }
        batch.changes = (0..<1_000).map { StoredChange(board: "wall-\($0)", rev: 1, ops: Array("[]".utf8)) }
        try store.commit(batch)
        store.close()
        try d.restart()
        #expect(try d.http("POST", "/api/boards/wall-1/actions", body: #"{"type":"toggle","section":"s1"}"#).status == 200)
        let out = d.directory.appendingPathComponent("backup.db").path
        var r: (status: Int32, stdout: String, stderr: String) = (0, "", "")
        let took = try Self.seconds { r = try DaemonProcess.runOnce(["backup", "--db", d.dbPath, out], timeout: 60) }
        #expect(r.status == 0 && r.stdout.contains("1000 boards"), "\(r.stdout) \(r.stderr)")
        print("FIGURE backup: 1,000 boards (\(SQLiteBackupFigures.size(out) / 1024) KiB): \(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)); the whole command \(Self.ms(took))")
    }

    /// Ten sections of a few items: a wall board of ordinary size.
    func bigBoard() -> Board {
        Board(mode: .single, sections: (0..<10).map { i in
            Section(id: "s\(i)", title: "Section \(i)", items: (0..<5).map { .string("item \(i).\($0) with some words in it") })
        })
    }
}

enum SQLiteBackupFigures {
    static func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0 }
}
