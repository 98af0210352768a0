import FoldCore
import FoldTestSupport
import Foundation
import Testing
@testable import FoldStore

/// A board's whole state is written at most every `maxRevsBehind` revs;
/// between, the change log carries it, and a reopened store replays it to
/// exactly the board that was committed.
@Suite struct StateSnapshotTests {
    func batch(_ name: String, epoch: String = "e", revs: ClosedRange<Int>, limit: Int = 1_000, created: Bool = false) -> CommitBatch {
        var b = CommitBatch(historyLimit: limit)
        b.boards = [StoredBoard(name: name, epoch: epoch, rev: revs.upperBound, state: [])]
        b.changes = revs.map { StoredChange(board: name, rev: $0, ops: []) }
        if created { b.created = [name] }
        return b
    }

    @Test func aStateIsWrittenFirstThenEveryMaxRevsBehindAndWheneverTheLogCannotCarryIt() {
        var s = StateSnapshots()
        func commit(_ b: CommitBatch) -> Bool {
            let p = s.plan(b)
            s.committed(p.after)
            return p.write.contains(b.boards[0].name)
        }
        #expect(commit(batch("a", revs: 1...2)))            // unknown to the file: written
        #expect(!commit(batch("a", revs: 3...5)))           // carried by the log
        let n = StateSnapshots.maxRevsBehind
        #expect(!commit(batch("a", revs: 6...(n + 1))))     // lags by n - 1
        #expect(commit(batch("a", revs: (n + 2)...(n + 2))))  // would lag by n: written
        #expect(s.boards["a"] == .init(epoch: "e", stateRev: n + 2, head: n + 2))
        #expect(commit(batch("a", revs: (n + 4)...(n + 4))))  // a gap in the log
        #expect(commit(batch("a", epoch: "f", revs: (n + 5)...(n + 5))))  // another epoch
        #expect(commit(batch("a", epoch: "f", revs: (n + 6)...(n + 6), created: true)))
        #expect(commit(batch("a", epoch: "f", revs: (n + 7)...(n + 7), limit: 1)))   // a log that keeps one change: always
        var put = CommitBatch(historyLimit: 1_000)
        put.boards = [StoredBoard(name: "a", epoch: "f", rev: n + 8, state: [])]   // no change logged
        #expect(commit(put))
        var deleted = batch("a", epoch: "f", revs: (n + 9)...(n + 9))
        deleted.deletions = ["a"]
        #expect(commit(deleted))
        // A batch rolled back changes nothing: the plan is applied only once committed.
        let before = s.boards
        _ = s.plan(batch("a", epoch: "f", revs: (n + 10)...(n + 10)))
        #expect(s.boards == before)
    }

    /// A log is pruned with its state, and otherwise once a minute while the board changes.
    @Test func aLogIsPrunedWithItsStateOrOnceAMinute() {
        var s = StateSnapshots()
        func commit(_ revs: ClosedRange<Int>, at now: Int) -> (write: Bool, prune: Bool) {
            var b = batch("a", revs: revs)
            b.now = now
            let p = s.plan(b)
            s.committed(p.after)
            return (p.write.contains("a"), p.prune.contains("a"))
        }
        let t = 1_000_000_000
        #expect(commit(1...1, at: t) == (true, true))
        #expect(commit(2...2, at: t + 1_000) == (false, false))
        #expect(commit(3...3, at: t + StateSnapshots.pruneEveryMs - 1) == (false, false))
        #expect(commit(4...4, at: t + StateSnapshots.pruneEveryMs) == (false, true))
        #expect(commit(5...5, at: t + StateSnapshots.pruneEveryMs + 1) == (false, false))
        #expect(commit(6...StateSnapshots.maxRevsBehind + 1, at: t + StateSnapshots.pruneEveryMs + 2) == (true, true))
    }

    /// Through a real file: 300 random changes on two boards, committed in
    /// batches of 1 to 7, some boards' rows left behind by up to 63 revs;
    /// reopened, every board is exactly what was committed, at its rev; and
    /// a log that keeps only a few changes still replays (its states are written each time).
    @Test(arguments: [1_000, 3])
    func aReopenedStoreReplaysTheLogToTheCommittedBoards(limit: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foldstore-snap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.db").path
        var rng = SplitMix64(seed: UInt64(limit))
        var boards: [String: (rev: Int, board: Board)] = ["x": (0, .initial), "y": (0, .initial)]
        let store = try SQLiteStore(path: path)
        var first = CommitBatch(historyLimit: limit)
        first.boards = boards.map { StoredBoard(name: $0.key, epoch: "e", rev: 0, state: $0.value.board.encoded()) }
        first.created = Set(boards.keys)
        try store.commit(first)
        var committed = 0
        while committed < 300 {
            var b = CommitBatch(historyLimit: limit)
            for _ in 0..<Int.random(in: 1...7, using: &rng) {
                let name = Bool.random(using: &rng) ? "x" : "y"
                let (rev, board) = boards[name]!
                let id = board.sections[Int.random(in: 0..<board.sections.count, using: &rng)].id
                let action: Action = Bool.random(using: &rng) ? .toggle(section: id) : .setTitle(section: id, title: "t\(committed)")
                guard let change = try board.applying(action, limits: Limits()) else { continue }
                boards[name] = (rev + 1, change.board)
                b.changes.append(StoredChange(board: name, rev: rev + 1, ops: PatchOp.encode(change.ops)))
                committed += 1
            }
            let touched = Set(b.changes.map(\.board))
            b.boards = touched.sorted().map { StoredBoard(name: $0, epoch: "e", rev: boards[$0]!.rev, state: boards[$0]!.board.encoded()) }
            try store.commit(b)
        }
        store.close()
        let raw = try SQLiteDatabase(path: path)
        let rows = try raw.prepare("SELECT name, rev FROM boards ORDER BY name")
        var lags: [Int] = []
        while try rows.step() { lags.append(boards[rows.text(0)]!.rev - rows.int(1)) }
        rows.reset()
        raw.close()
        #expect(lags.allSatisfy { $0 >= 0 && $0 < min(StateSnapshots.maxRevsBehind, limit) })
        if limit > StateSnapshots.maxRevsBehind { #expect(lags.contains { $0 > 0 }, "no state was left to the log: \(lags)") }
        let again = try SQLiteStore(path: path)
        defer { again.close() }
        let loaded = try again.loadBoards()
        #expect(loaded.map(\.name) == ["x", "y"])
        for b in loaded {
            #expect(b.rev == boards[b.name]!.rev)
            #expect(try Board(trusted: JSONParser.parse(b.state)) == boards[b.name]!.board)
        }
        // What the daemon reads at start, and a board read on first use by a reader of its own: the same heads.
        #expect(try again.loadCatalog() == loaded.map { CatalogEntry(name: $0.name, epoch: "e", rev: $0.rev) })
        let reader = try again.historyReader()
        defer { reader.close() }
        for name in ["x", "y"] {
            let read = try #require(try reader.readBoard(name, history: 10))
            #expect(read.board.rev == boards[name]!.rev)
            #expect(try Board(trusted: JSONParser.parse(read.board.state)) == boards[name]!.board)
            // The last changes up to the head, oldest first: at most the 10 asked, at least the ones the store keeps.
            let revs = read.changes.map(\.rev)
            #expect(revs.last == read.board.rev && revs == Array((revs.first ?? 1)...read.board.rev), "\(revs)")
            #expect(revs.count <= 10 && revs.count >= min(10, limit), "\(revs)")
        }
        #expect(try reader.readBoard("nope", history: 10) == nil)
    }
}
