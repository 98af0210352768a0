import FoldCore
import Testing
@testable import FoldHub

/// Writes go through the group commit: nothing is shown or acknowledged
/// before the store has it, and answers keep their order.
@Suite struct CommitPipelineTests {
    @Test func aToggleAsksForACommitAndWaitsForIt() {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        h.act(1, .toggle, #""section":"s1""#, tag: "t")
        #expect(h.commits.count == 1)
        #expect(h.commits[0].changes.map(\.rev) == [1])
        #expect(h.commits[0].puts.map(\.name) == ["default"])
        #expect(h.read(1).isEmpty, "no patch and no ack before the commit")
    }

    @Test func aCommitSendsOnePatchFrameToEverySubscriberThenAcks() {
        let h = HubHarness()
        for id: UInt64 in 1...3 {
            h.open(id)
            h.subscribe(id)
            _ = h.read(id)
        }
        h.act(2, .toggle, #""section":"s1""#, tag: "t")
        let before = h.effects.count
        h.finishCommits()
        let after = Array(h.effects[before...])
        // One fan-out effect: the patch encoded once for all three.
        let fanOuts = after.compactMap { if case .fanOut(let ids, let f, _) = $0 { (Set(ids), f) } else { nil } }
        #expect(fanOuts.count == 1)
        #expect(fanOuts.first?.0 == [1, 2, 3])
        let ackIndex = after.firstIndex { if case .send([2], _) = $0 { true } else { false } }
        let fanIndex = after.firstIndex { if case .fanOut = $0 { true } else { false } }
        #expect(fanIndex != nil && ackIndex != nil && fanIndex! < ackIndex!, "the patch goes out before the ack")
        #expect(h.read(1).map(\.type) == ["patch"])
        let originator = h.read(2)
        #expect(originator.map(\.type) == ["patch", "ack"])
        #expect(originator[0]["by"]?.stringValue == "c2" && originator[1].rev == 1)
    }

    @Test func aNoOpAckWaitsBehindEarlierWrites() {
        let h = HubHarness()
        h.open(1)
        h.act(1, .expand, #""section":"s1""#, tag: "w")
        // s1 is expanded at the head: expanding it again changes nothing.
        h.act(1, .expand, #""section":"s1""#, tag: "n")
        #expect(h.read(1).isEmpty, "the no-op's ack waits for the write before it")
        #expect(h.commits.count == 1)
        h.finishCommits()
        let acks = h.read(1)
        #expect(acks.map { $0["id"]?.stringValue } == ["w", "n"])
        #expect(acks.map(\.rev) == [1, 1])
        #expect(h.commits.isEmpty, "the no-op alone writes nothing")
    }

    @Test func aFailedCommitRollsBackRefusesWritesProbesAndRecovers() {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        h.store.failure = "disk full"
        h.act(1, .toggle, #""section":"s0""#, tag: "a")
        h.finishCommits()
        let refused = h.read(1)
        #expect(refused.map(\.code) == ["internal"] && refused[0]["id"]?.stringValue == "a")
        #expect(h.hub.board("default")?.committedRev == 0 && h.hub.storeFault == "disk full")
        #expect(h.hub.statusLine.hasPrefix("not ready: store ./foldsync.db refuses writes: disk full"))

        h.act(1, .toggle, #""section":"s0""#, tag: "b")
        #expect(h.read(1).map(\.code) == ["internal"] && h.commits.isEmpty, "writes are refused at once")

        h.advance(seconds: 1)
        #expect(h.probes == 1)
        h.feed(.committed(.probed(ok: false, reason: "disk full")))
        h.advance(seconds: 1)
        #expect(h.probes == 2, "probes again while the store refuses")
        h.store.failure = nil
        h.feed(.committed(.probed(ok: true, reason: "")))
        #expect(h.hub.storeFault == nil)

        _ = h.read(1)  // presence, meanwhile
        h.act(1, .toggle, #""section":"s0""#, tag: "c")
        h.finishCommits()
        let ok = h.read(1)
        #expect(ok.map(\.type) == ["patch", "ack"] && ok[1].rev == 1, "rev 1 again: the failed change never happened")
    }

    @Test func theAccordionHoldsAcrossABatch() {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        h.act(1, .expand, #""section":"s0""#)   // in flight
        h.act(1, .expand, #""section":"s1""#)   // pending ...
        h.act(1, .expand, #""section":"s2""#)   // ... batched with this one
        h.finishCommits()
        #expect(h.effects.count { if case .commit = $0 { true } else { false } } == 2, "two batches: one in flight, then the rest")
        let expanded = h.store.boards["default"].map { try! JSONParser.parse($0.state) }?["sections"]?.arrayValue?
            .compactMap { $0["expanded"]?.boolValue == true ? $0["id"]?.stringValue : nil }
        #expect(expanded == ["s2"], "single mode: only the last one stays open")
        #expect(h.hub.board("default")?.committed?.expandedIndices == [2])
        #expect(h.read(1).filter { $0.type == "patch" }.map(\.rev) == [1, 2, 3])
    }
}
