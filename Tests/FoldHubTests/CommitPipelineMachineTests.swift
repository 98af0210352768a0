@testable import FoldCore
@testable import FoldHub
import Testing

/// The commit pipeline on its own, input by input, with no hub: sealing,
/// writing while the last batch syncs, answers in batch order, no-op
/// answers behind a sync, a failure refusing everything after it and the
/// probes, a batch another node refused waiting for its catch-up and
/// regrouped, and remote updates deferred while writes wait.
@Suite struct CommitPipelineMachineTests {
    static func write(_ board: String, intent: Bool = true) -> PendingEntry {
        PendingEntry(mutation: .delete(board: board), reply: .httpDeleted(exchange: 1), board: board, rev: 1,
                     intent: intent ? .delete(board: board) : nil)
    }

    static func noOp(_ board: String) -> PendingEntry {
        PendingEntry(mutation: nil, reply: .httpRev(exchange: 2), board: board, rev: 0,
                     judgedAt: PositionCheck(name: board, epoch: "e", rev: 0))
    }

    /// As the hub builds a batch: a deletion per write; on a shared store a check per no-op.
    static func build(shared: Bool) -> (UInt64, [PendingEntry]) -> SealedBatch {
        { id, entries in
            var b = SealedBatch(id: id, historyLimit: 10)
            for e in entries {
                if case .delete(let name)? = e.mutation { b.deletions.append(name) } else if shared, let c = e.judgedAt { b.checks.append(c) }
            }
            return b
        }
    }

    static func committed(_ s: CommitPipeline.Sealed) -> UInt64? { if case .commit(let b) = s { b.id } else { nil } }
    static func answered(_ s: CommitPipeline.Sealed) -> [PendingEntry]? { if case .answer(let b) = s { b.entries } else { nil } }
    static func none(_ s: CommitPipeline.Sealed) -> Bool { if case .none = s { true } else { false } }

    @Test func batchesAreWrittenWhileTheLastSyncsAndAnsweredInOrder() throws {
        var p = CommitPipeline()
        let a = Self.write("a"), b = Self.write("b"), c = Self.write("c")
        #expect(p.enqueue(a) == true)
        #expect(Self.committed(p.seal(build: Self.build(shared: false))) == 1)
        // While batch 1 is being written, more requests wait for the next.
        #expect(p.enqueue(b) == false)
        #expect(p.enqueue(c) == false)
        #expect(Self.none(p.seal(build: Self.build(shared: false))))
        #expect(p.holds("b") && p.waiting == 3 && p.newestUnsynced == 1)
        #expect(p.written(7) == false, "a batch not in flight")
        #expect(p.written(1) == true)
        #expect(Self.committed(p.seal(build: Self.build(shared: false))) == 2)
        #expect(p.oldestUnsynced == 1 && p.newestUnsynced == 2)
        // Durable out of order is not answered: the oldest first.
        #expect(p.written(2) == true)
        #expect(p.committed(2) == nil)
        #expect(p.committed(1)?.map(\.board) == ["a"])
        #expect(p.committed(2)?.map(\.board) == ["b", "c"])
        #expect(p.isIdle && p.waiting == 0 && p.newestUnsynced == nil)
        // A store that syncs inside its commit: committed straight from in flight.
        #expect(p.enqueue(Self.write("d")) == true)
        #expect(Self.committed(p.seal(build: Self.build(shared: false))) == 3)
        #expect(p.committed(3)?.map(\.board) == ["d"])
    }

    @Test func noOpAnswersWaitBehindASyncAndAreAnsweredWithoutAWrite() throws {
        var p = CommitPipeline()
        // Nothing syncing: a no-op is answered at once, with no batch written.
        #expect(p.enqueue(Self.noOp("a")) == true)
        #expect(Self.answered(p.seal(build: Self.build(shared: false)))?.count == 1)
        #expect(p.isIdle)
        #expect(p.enqueue(Self.write("a")) == true)
        #expect(Self.committed(p.seal(build: Self.build(shared: false))) != nil)
        let id = try #require(p.newestUnsynced)
        #expect(p.written(id) == true)
        // Judged on a change not durable yet: it waits for the sync.
        #expect(p.enqueue(Self.noOp("a")) == true)
        #expect(Self.none(p.seal(build: Self.build(shared: false))))
        #expect(p.waiting == 2)
        #expect(p.committed(id)?.count == 1)
        #expect(Self.answered(p.seal(build: Self.build(shared: false)))?.count == 1)
        // On a shared store the no-op is confirmed against the store with a batch of its own.
        var shared = CommitPipeline(shared: true)
        #expect(shared.enqueue(Self.noOp("a")) == true)
        #expect(Self.committed(shared.seal(build: Self.build(shared: true))) == 1)
    }

    @Test func aFailureRefusesEverythingAfterItAndProbesUntilTheStoreRecovers() throws {
        var p = CommitPipeline()
        #expect(p.enqueue(Self.write("a")) == true)
        _ = p.seal(build: Self.build(shared: false))
        #expect(p.written(1) == true)
        #expect(p.enqueue(Self.write("b")) == true)
        _ = p.seal(build: Self.build(shared: false))
        #expect(p.enqueue(Self.write("c")) == false)
        #expect(p.failed(9, reason: "x", random: 0) == nil, "a batch the pipeline does not hold")
        // Batch 1 (syncing) fails: 2 was written over it, 3 waits; none may be answered as stored.
        let failed = p.failed(1, reason: "disk full", random: 0)
        let failure = try #require(failed)
        #expect(failure.refused.map(\.board) == ["a", "b", "c"])
        #expect(failure.probeIn > 0 && failure.probeIn <= 0.25)
        #expect(p.fault == "disk full" && p.isIdle)
        #expect(p.committed(2) == nil, "a batch refused by the failure is never answered")
        // Probes: still refusing (the same reason, then another), then recovered.
        guard case .stillRefusing(false, let first) = p.probed(ok: false, reason: "disk full", random: 1) else { Issue.record("a"); return }
        guard case .stillRefusing(true, let second) = p.probed(ok: false, reason: "read-only", random: 1) else { Issue.record("b"); return }
        #expect(second >= first, "the probes back off")
        #expect(p.probed(ok: true, reason: "", random: 0) == .recovered)
        #expect(p.fault == nil)
        #expect(p.probed(ok: true, reason: "", random: 0) == .ignored)
    }

    @Test func aMovedBatchWaitsForItsBoardsCatchUpAndIsRegroupedAsOneBatch() throws {
        var p = CommitPipeline(shared: true)
        #expect(p.enqueue(Self.write("a")) == true)
        _ = p.seal(build: Self.build(shared: true))
        #expect(p.enqueue(Self.write("b")) == false)
        #expect(p.enqueue(Self.write("a", intent: false)) == false)
        #expect(p.moved(5) == nil)
        let refused = p.moved(1)
        let moved = try #require(refused)
        #expect(moved.unanswerable.count == 1 && moved.catchUp == ["a", "b"])
        #expect(p.isIdle && p.awaitingCatchUp.count == 2)
        #expect(p.awaitingCatchUp.map(\.refusals) == [1, 0], "the request of the refused batch counts a refusal; one never sent does not")
        // A new request on a board waiting for its catch-up waits behind; another board's does not.
        #expect(p.holdBehindCatchUp("a", Self.write("a")) == true)
        #expect(p.holdBehindCatchUp("z", Self.write("z")) == false)
        // A failure meanwhile refuses what waits too.
        var failing = p
        #expect(failing.enqueue(Self.write("z")) == true)
        _ = failing.seal(build: Self.build(shared: true))
        #expect(failing.failed(2, reason: "gone", random: 0)?.refused.map(\.board) == ["z", "a", "b", "a"])
        #expect(failing.holdBehindCatchUp("a", Self.write("a")) == false, "nothing waits for a catch-up behind a failing store")
        // Board a caught up: its two requests come back in order, sealed together once regrouped.
        let again = p.caughtUp("a")
        #expect(again.count == 2 && p.regrouping)
        for e in again { #expect(p.enqueue(e) == false, "held while regrouping") }
        p.regrouped()
        let batch = try #require(Self.committed(p.seal(build: Self.build(shared: true))))
        #expect(p.inFlight?.id == batch && p.inFlight?.entries.count == 2)
        #expect(p.caughtUp("a").isEmpty)
        #expect(p.awaitingCatchUp.map(\.board) == ["b"])
    }

    @Test func remoteUpdatesOfABoardWithWritesWaitingAreDeferredUntilTheStoreAnswered() throws {
        var p = CommitPipeline(shared: true)
        #expect(p.remoteUpdate(on: "a") == false, "no write waits: applied at once")
        #expect(p.enqueue(Self.write("a")) == true)
        _ = p.seal(build: Self.build(shared: true))
        #expect(p.remoteUpdate(on: "a") == true)
        #expect(p.deferredCatchUps().isEmpty, "still held by the batch in flight")
        #expect(p.committed(1) != nil)
        #expect(p.deferredCatchUps() == ["a"])
        #expect(p.deferredCatchUps().isEmpty, "asked once")
    }
}
