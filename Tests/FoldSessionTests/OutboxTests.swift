import FoldCore
import Testing
@testable import FoldSession

/// The outbox machine input by input: no socket, no clock.
@Suite struct OutboxTests {
    func sent(_ effects: [Outbox.Effect]) -> [String] {
        effects.compactMap { if case .send(let i) = $0 { i.key } else if case .settle(let i) = $0 { "settle " + i.key } else { nil } }
    }

    func outcomes(_ effects: [Outbox.Effect]) -> [String] {
        effects.compactMap {
            switch $0 {
            case .resolve(let t, let rev): "\(t)=\(rev)"
            case .reject(let t, let e): "\(t):\(e.code)"
            default: nil
            }
        }
    }

    @Test func keptWhileOfflineThenSentInOrderWithTheirKeys() {
        var o = Outbox(clientID: "c")
        #expect(o.call(1, board: "b", action: .toggle(section: "s0"), ifRev: nil, now: 0).isEmpty)
        #expect(o.call(2, board: "b", action: .toggle(section: "s1"), ifRev: 3, now: 0).isEmpty)
        #expect(sent(o.ready(now: 1)) == ["c-1", "c-2"])
        #expect(sent(o.call(3, board: "b", action: .expandAll, ifRev: nil, now: 1)) == ["c-3"], "connected: at once")
        #expect(outcomes(o.answered(id: "c-2", rev: 5, error: nil)) == ["2=5"])
        #expect(o.items.map(\.key) == ["c-1", "c-3"])
    }

    @Test func aLostAnswerIsSentAgainWithTheSameKey() {
        var o = Outbox(clientID: "c")
        _ = o.ready(now: 0)
        _ = o.call(1, board: "b", action: .toggle(section: "s0"), ifRev: nil, now: 0)
        o.lost()
        #expect(o.items.map(\.phase) == [.cut])
        #expect(sent(o.ready(now: 1)) == ["c-1"])
        #expect(outcomes(o.answered(id: "c-1", rev: 1, error: nil)) == ["1=1"])
        #expect(o.items.isEmpty)
    }

    @Test func boundsExpireWhatWasNeverSentAndSettleWhatWas() {
        var o = Outbox(clientID: "c", limits: OutboxLimits(maxActions: 2, maxAge: 10))
        _ = o.ready(now: 0)
        _ = o.call(1, board: "b", action: .toggle(section: "s0"), ifRev: nil, now: 0)
        o.lost()
        _ = o.call(2, board: "b", action: .toggle(section: "s1"), ifRev: nil, now: 1)
        #expect(outcomes(o.call(3, board: "b", action: .toggle(section: "s2"), ifRev: nil, now: 1)) == ["3:expired"], "over the count")
        #expect(outcomes(o.tick(now: 5)).isEmpty)
        #expect(outcomes(o.tick(now: 12)) == ["2:expired"], "never sent, past its age")
        // Sent before the cut and past its age: settled, not sent again.
        let back = o.ready(now: 12)
        #expect(sent(back) == ["settle c-1"])
        #expect(outcomes(o.answered(id: "c-1", rev: nil, error: SyncError(code: "expired", message: "void"))) == ["1:expired"])
    }

    @Test func cancelTakesBackWhatWasNotSentAndSettlesWhatWas() {
        var o = Outbox(clientID: "c")
        _ = o.call(1, board: "b", action: .toggle(section: "s0"), ifRev: nil, now: 0)
        #expect(outcomes(o.cancel(1)) == ["1:expired"])
        _ = o.ready(now: 0)
        _ = o.call(2, board: "b", action: .toggle(section: "s0"), ifRev: nil, now: 0)
        #expect(sent(o.cancel(2)) == ["settle c-2"])
        #expect(outcomes(o.answered(id: "c-2", rev: 4, error: nil)) == ["2=4"], "it had been applied: its rev")
    }

    @Test func droppedAnswersAreAskedAgainAndCloseFailsTheRest() {
        var o = Outbox(clientID: "c")
        _ = o.ready(now: 0)
        _ = o.call(1, board: "b", action: .toggle(section: "s0"), ifRev: nil, now: 0)
        #expect(sent(o.answersDropped()) == ["c-1"])
        o.lost()
        _ = o.call(2, board: "b", action: .toggle(section: "s1"), ifRev: nil, now: 0)
        #expect(outcomes(o.closeAll()) == ["1:closed", "2:closed"])
        #expect(o.items.isEmpty)
    }
}
