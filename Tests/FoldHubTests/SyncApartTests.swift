import FoldCore
import Testing
@testable import FoldHub

/// A store that syncs apart (SQLite's WAL): the committer reports a batch
/// `written`, so the next one may be written while it syncs, and
/// `committed` once it is durable. Nothing is shown or acknowledged before
/// `committed`, answers keep their order, and no answer rests on a change a
/// crash could still take back.
@Suite struct SyncApartTests {
    /// Writes the oldest batch handed over and reports it written (not durable).
    func write(_ h: HubHarness) -> SealedBatch {
        let batch = h.commits.removeFirst()
        try! h.store.commit(batch.encoded())
        h.feed(.committed(.written(batch: batch.id)))
        return batch
    }

    @Test func theNextBatchIsWrittenWhileTheLastSyncsAndAcksWaitForTheSync() {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        h.act(1, .toggle, #""section":"s1""#, tag: "a")
        h.act(1, .toggle, #""section":"s2""#, tag: "b")
        #expect(h.commits.count == 1, "one batch at a time goes to the committer")
        let first = write(h)
        #expect(h.commits.count == 1, "written: the next batch goes at once, before the first is durable")
        #expect(h.read(1).isEmpty, "no patch and no ack before the sync")
        let second = write(h)
        #expect(h.read(1).isEmpty)
        h.feed(.committed(.committed(batch: first.id, seconds: 0.001)))
        let out = h.read(1)
        #expect(out.map(\.type) == ["patch", "ack"])
        #expect(out.last?["id"]?.stringValue == "a")
        h.feed(.committed(.committed(batch: second.id, seconds: 0.001)))
        #expect(h.read(1).map { $0["id"]?.stringValue ?? $0.type } == ["patch", "b"])
    }

    @Test func aNoOpJudgedOnAChangeNotYetDurableWaitsForTheSync() {
        let h = HubHarness()
        h.open(1)
        h.act(1, .expand, #""section":"s1""#, tag: "w")
        let batch = write(h)
        // Expanding s1 again changes nothing, on a head that is not durable yet.
        h.act(1, .expand, #""section":"s1""#, tag: "n")
        #expect(h.read(1).isEmpty, "the no-op is not answered before the change it was judged on is durable")
        #expect(h.commits.isEmpty, "a batch of no-ops alone writes nothing")
        h.feed(.committed(.committed(batch: batch.id, seconds: 0.001)))
        let acks = h.read(1)
        #expect(acks.map { $0["id"]?.stringValue } == ["w", "n"])
        #expect(acks.map(\.rev) == [1, 1])
    }

    @Test func aFailedSyncRefusesEveryBatchWrittenAfterIt() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.subscribe(2)
        _ = h.read(2)
        h.act(1, .toggle, #""section":"s1""#, tag: "a")
        h.act(1, .toggle, #""section":"s2""#, tag: "b")
        let first = write(h)
        let second = write(h)
        h.feed(.committed(.failed(batch: first.id, reason: "fdatasync failed")))
        let answers = h.read(1)
        #expect(answers.map(\.type) == ["error", "error"], "both refused: the second was written over the first")
        #expect(h.read(2).isEmpty, "nothing was shown")
        // The later outcomes of batches already refused change nothing.
        h.feed(.committed(.committed(batch: second.id, seconds: 0.001)))
        #expect(h.read(1).isEmpty && h.read(2).isEmpty)
        // Writes are refused until a probe succeeds.
        h.act(1, .toggle, #""section":"s1""#, tag: "c")
        #expect(h.read(1).first?.type == "error")
    }

    @Test func aHistoryPageReadBeforeASyncWaitsForIt() {
        let h = HubHarness()
        h.holdReads = true
        h.open(1)
        h.act(1, .toggle, #""section":"s1""#, tag: "a")
        let batch = write(h)
        h.feed(.http(HubRequest(id: 7, method: "GET", path: "/api/boards/default/history")))
        // The reader sees what was written, durable or not.
        h.finishReads()
        #expect(h.responses[7] == nil, "a page that may show rev 1 waits until rev 1 is durable")
        h.feed(.committed(.committed(batch: batch.id, seconds: 0.001)))
        let page = h.responses[7].flatMap { try? JSONParser.parse($0.body) }
        #expect(page?["entries"]?.arrayValue?.count == 1)
        #expect(page?["rev"]?.intValue == 1)
    }
}
