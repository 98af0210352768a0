import FoldCore
import Testing
@testable import FoldHub

/// When a fan-out's frame leaves is the hub's decision, returned with the
/// effect: a lone change writes as it goes except to the writer, who gets
/// patch and ack in one write; several changes in one turn (or a lone one
/// beside many answers) wait for the turn's flush.
@Suite struct FanOutFlushTests {
    func flushes(_ effects: [HubEffect]) -> [FanOutFlush] {
        effects.compactMap { if case .fanOut(_, _, let f) = $0 { f } else { nil } }
    }

    func subscribed(_ ids: ClosedRange<UInt64>) -> HubHarness {
        let h = HubHarness()
        for id in ids {
            h.open(id)
            h.subscribe(id)
            _ = h.read(id)
        }
        return h
    }

    @Test func aLoneChangeWritesAsItGoesButTheWriterWaitsForItsAck() {
        let h = subscribed(1...3)
        h.act(2, .toggle, #""section":"s1""#, tag: "t")
        let before = h.effects.count
        h.finishCommits()
        #expect(flushes(Array(h.effects[before...])) == [.now(except: [2])])
    }

    @Test func severalChangesInOneTurnWaitForTheFlush() {
        let h = subscribed(1...2)
        // Two of another node's changes read together: two fan-outs in one turn.
        let out = h.feed(.remote(.changes(board: "default", epoch: "e0", [
            StoredChange(board: "default", rev: 1, ops: Array(#"[{"op":"replace","path":"/sections/1/expanded","value":true}]"#.utf8)),
            StoredChange(board: "default", rev: 2, ops: Array(#"[{"op":"replace","path":"/sections/0/title","value":"x"}]"#.utf8)),
        ])))
        #expect(flushes(out) == [.endOfTurn, .endOfTurn])
        #expect(h.read(1).map(\.rev) == [1, 2])
    }

    @Test func aLoneChangeBesideManyAnswersWaitsForTheFlush() {
        var effects: [HubEffect] = [.fanOut(ids: [1, 2], frame: [1], flush: .endOfTurn)]
        for id: UInt64 in 1...(UInt64(FanOutFlush.maxAnswersAlone) + 1) { effects.append(.send(ids: [id], frame: [2])) }
        FanOutFlush.decide(&effects)
        #expect(flushes(effects) == [.endOfTurn])
        var few: [HubEffect] = [.send(ids: [9], frame: [0]), .fanOut(ids: [1, 2], frame: [1], flush: .endOfTurn), .send(ids: [1], frame: [2])]
        FanOutFlush.decide(&few)
        // Only answers after the fan-out count: an answer before it left already.
        #expect(flushes(few) == [.now(except: [1])])
    }
}
