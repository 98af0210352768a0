import FoldCore
import FoldTestSupport
import Foundation
import Testing
@testable import FoldStore

/// The change log in runs: the encoding of a run (`LogChunk`), where each
/// commit's changes go (`LogPlacement`), and through a real file, a crash
/// (the files copied while the store is open) keeping every change the
/// journal held, and history read across chunks and the journal.
extension LogChunk {
    static func encode(_ changes: [StoredChange]) -> [UInt8] {
        var out: [UInt8] = []
        encode(changes, into: &out)
        return out
    }

    static func encodeJournal(_ runs: [StagedRun]) -> [UInt8] {
        var out: [UInt8] = []
        encodeJournal(runs, into: &out)
        return out
    }
}

@Suite struct ChangeLogRunTests {
    static func change(_ board: String, _ rev: Int, at: Int = 0, record: Bool = true) -> StoredChange {
        StoredChange(board: board, rev: rev, ops: Array(#"[{"op":"replace","path":"/sections/0/title","value":"r\#(rev)"}]"#.utf8),
                     record: record ? ChangeRecord(at: at, actor: "ä\"lice", session: "c\(rev)", action: Array(#"{"type":"toggle"}"#.utf8),
                                                   inverse: Array(#"{"ids":["s0"],"old":["x"]}"#.utf8), summary: "title → 'r\(rev)' \u{1F389}") : nil)
    }

    @Test func aRunDecodesToExactlyWhatWasEncoded() throws {
        let run = [Self.change("b", 1, at: 5), Self.change("b", 2, record: false), Self.change("b", 300, at: -7), Self.change("b", 1 << 40, at: 1 << 50)]
        #expect(try LogChunk.decode(LogChunk.encode(run), board: "b") == run)
        #expect(try LogChunk.decode([], board: "b").isEmpty)
        let journal = [StagedRun(board: "a", epoch: "e1", changes: [Self.change("a", 1, at: 5), Self.change("a", 2, record: false)]),
                       StagedRun(board: "b\u{0}c", epoch: "", changes: [Self.change("b\u{0}c", 9)])]
        #expect(try LogChunk.decodeJournal(LogChunk.encodeJournal(journal)) == journal)
    }

    @Test func aDamagedRunIsAnErrorNotACrash() {
        let blob = LogChunk.encode([Self.change("b", 1, at: 5), Self.change("b", 2, at: 6)])
        let firstEnds = LogChunk.encode([Self.change("b", 1, at: 5)]).count
        for cut in [1, 3, 10, firstEnds - 1, firstEnds + 5, blob.count - 1] {
            #expect(throws: StoreError.self, "cut at \(cut)") { try LogChunk.decode(Array(blob[..<cut]), board: "b") }
        }
        #expect(throws: StoreError.self) { try LogChunk.decode([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], board: "b") }
        #expect(throws: StoreError.self) { try LogChunk.decode([1, 0, 0x7f], board: "b") }
    }

    /// A prune finds where to cut from each change's rev and time alone, and
    /// what follows the cut decodes to the changes kept.
    @Test func theFirstKeptChangeIsFoundWithoutDecoding() throws {
        let run = (1...6).map { Self.change("b", $0, at: $0 * 10, record: $0 != 2) }
        let blob = LogChunk.encode(run)
        #expect(try LogChunk.firstKept(in: blob, board: "b") { _, _ in true }?.offset == 0)
        #expect(try LogChunk.firstKept(in: blob, board: "b") { _, _ in false } == nil)
        for keepFrom in 2...6 {
            let kept = try #require(try LogChunk.firstKept(in: blob, board: "b") { rev, _ in rev >= keepFrom })
            #expect(kept.rev == keepFrom)
            #expect(try LogChunk.decode(Array(blob[kept.offset...]), board: "b") == Array(run[(keepFrom - 1)...]))
        }
        #expect(try LogChunk.firstKept(in: blob, board: "b") { _, at in at >= 35 }?.rev == 4)
    }

    func batch(_ runs: [(String, ClosedRange<Int>)], epoch: String = "e", deletions: [String] = []) -> CommitBatch {
        var b = CommitBatch(historyLimit: 1_000)
        b.deletions = deletions
        b.boards = runs.map { StoredBoard(name: $0.0, epoch: epoch, rev: $0.1.upperBound, state: []) }
        b.changes = runs.flatMap { r in r.1.map { Self.change(r.0, $0) } }
        return b
    }

    /// Few changes of a board wait in the journal, a row per commit; many at
    /// once go straight to a chunk; a board with `flushAt` waiting moves them
    /// into one chunk; and journal rows go once nothing in them waits.
    @Test func changesWaitInTheJournalUntilTheirBoardHasARunsWorth() {
        var s = LogPlacement()
        let p1 = s.plan(batch([("a", 1...2), ("b", 1...LogPlacement.directAt)]), flush: [])
        #expect(p1.journal == [StagedRun(board: "a", epoch: "e", changes: (1...2).map { Self.change("a", $0) })])
        #expect(p1.seq == 1 && p1.chunks.map(\.board) == ["b"] && p1.chunks[0].staged == false)
        #expect(p1.updates["a"] == .replace((1...2).map { Self.change("a", $0) }))
        #expect(p1.dropBelow == nil)
        s.committed(p1)
        #expect(s.boards["a"] == .init(epoch: "e", count: 2, since: 1) && s.boards["b"] == nil)
        let p2 = s.plan(batch([("a", 3...3)]), flush: [])
        #expect(p2.seq == 2 && p2.updates["a"] == .append([Self.change("a", 3)]))
        s.committed(p2)
        let p3 = s.plan(batch([("a", 4...LogPlacement.flushAt)]), flush: [])
        #expect(p3.journal.isEmpty && p3.chunks == [.init(board: "a", staged: true, changes: (4...LogPlacement.flushAt).map { Self.change("a", $0) })])
        #expect(p3.updates["a"] == .replace([]) && p3.dropBelow == 3, "rows 1 and 2 held only a's changes")
        s.committed(p3)
        #expect(s.boards.isEmpty && s.keptFrom == 3)
        // A pruned board moves what it has; a deleted one drops it; another epoch starts over.
        s.committed(s.plan(batch([("c", 1...1), ("d", 1...1)]), flush: []))
        let p4 = s.plan(batch([("c", 2...2)]), flush: ["c"])
        #expect(p4.chunks == [.init(board: "c", staged: true, changes: [Self.change("c", 2)])])
        s.committed(p4)
        let p5 = s.plan(batch([], deletions: ["d"]), flush: [])
        #expect(p5.updates["d"] == .replace([]) && p5.chunks.isEmpty && p5.dropBelow == 4, "the row d waited in goes with it")
        s.committed(p5)
        s.committed(s.plan(batch([("e", 1...1)]), flush: []))
        let p6 = s.plan(batch([("e", 1...1)], epoch: "f"), flush: [])
        #expect(p6.chunks == [.init(board: "e", staged: true, changes: [])], "the old epoch's change goes to a chunk of its own")
        #expect(p6.updates["e"] == .replace([Self.change("e", 1)]))
        // Nothing changes until the plan is committed.
        let before = s.boards
        _ = s.plan(batch([("g", 1...1)]), flush: [])
        #expect(s.boards == before)
    }

    /// A board that stops changing does not hold the journal: once the row
    /// holding its oldest change is `journalSpan` rows old, it moves.
    @Test func anIdleBoardsChangesMoveOnceTheJournalHasGoneOnWithoutThem() {
        var s = LogPlacement()
        s.committed(s.plan(batch([("idle", 1...1)]), flush: []))
        var n = 0
        var seqWhenMoved = 0
        while s.boards["idle"] != nil && n < 2_000 {
            n += 1
            seqWhenMoved = s.nextSeq
            s.committed(s.plan(batch([("busy", n...n)]), flush: []))
        }
        #expect(s.boards["idle"] == nil)
        #expect(seqWhenMoved - 1 == LogPlacement.journalSpan, "moved as soon as its row was journalSpan rows old")
        #expect(s.keptFrom > 1)
    }

    /// Through a real file: random commits on three boards (runs of 1 to 40
    /// changes, some boards deleted and made again). After each step, the
    /// history of every board reads back as committed, from the store and
    /// from a reader on its own connection; the files copied mid-way (as a
    /// kill -9 leaves them) reopen to the same history, journal included.
    @Test(arguments: [1, 2, 3])
    func historyReadsBackAcrossChunksAndTheJournalAndSurvivesACrash(seed: UInt64) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldstore-runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.db").path
        var rng = SplitMix64(seed: seed)
        var expected: [String: (epoch: String, revs: [Int])] = [:]
        let store = try SQLiteStore(path: path, busyTimeoutMs: 100)
        let reader = try store.historyReader()
        defer { reader.close() }
        func check(_ source: HistorySource, _ what: String) throws {
            for (name, e) in expected {
                let all = try source.history(board: name, HistoryQuery(.since(0), limit: 100_000))
                #expect(all.map(\.rev) == e.revs, "\(what) \(name)")
                #expect(all.allSatisfy { $0 == Self.change(name, $0.rev, at: $0.record?.at ?? -1) }, "\(what) \(name)")
                guard let last = e.revs.last else { continue }
                #expect(try source.history(board: name, HistoryQuery(.latest, limit: 7)).map(\.rev) == Array(e.revs.suffix(7)), "\(what) \(name)")
                let mid = e.revs[e.revs.count / 2]
                #expect(try source.history(board: name, HistoryQuery(.before(mid), limit: 5)).map(\.rev) == Array(e.revs.filter { $0 < mid }.suffix(5)))
                #expect(try source.history(board: name, HistoryQuery(.since(mid), limit: 9)).map(\.rev) == Array(e.revs.filter { $0 > mid }.prefix(9)))
                #expect(try source.history(board: name, HistoryQuery(.since(last), limit: 9)).isEmpty)
            }
        }
        var crashCopied = false
        for step in 0..<120 {
            var b = CommitBatch(historyLimit: 100_000, now: 1_000 + step)
            for name in ["a", "b", "c"] where Int.random(in: 0..<3, using: &rng) > 0 {
                if Int.random(in: 0..<25, using: &rng) == 0, expected[name] != nil {
                    b.deletions.append(name)
                    expected[name] = nil
                    continue
                }
                let e = expected[name] ?? (epoch: "e\(step)", revs: [])
                let from = (e.revs.last ?? 0) + 1
                let n = [1, 1, 2, 3, 5, 17, 40][Int.random(in: 0..<7, using: &rng)]
                let revs = Array(from..<(from + n))
                b.boards.append(StoredBoard(name: name, epoch: e.epoch, rev: revs.last!, state: []))
                b.changes += revs.map { Self.change(name, $0, at: 1_000 + step) }
                expected[name] = (e.epoch, e.revs + revs)
            }
            try store.commit(b)
            if step % 20 == 19 {
                try check(store, "store")
                try check(reader, "reader")
            }
            if step == 70 {
                for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: dir.appendingPathComponent("crash.db").path + suffix) }
                let reopened = try SQLiteStore(path: dir.appendingPathComponent("crash.db").path)
                try check(reopened, "after a crash")
                reopened.close()
                crashCopied = true
            }
        }
        #expect(crashCopied)
        store.close()
        let again = try SQLiteStore(path: path)
        try check(again, "reopened")
        again.close()
    }
}
