import FoldCore
import Testing
@testable import FoldHub

/// A connection that does not read is never buffered without bound: past
/// its queue's bound it gets a snapshot instead, and if it still does not
/// read, it is closed after the slow-client timeout.
@Suite struct SlowClientTests {
    func harness() -> HubHarness {
        let h = HubHarness { $0.clients.maxQueueFrames = 8; $0.clients.slowClientSeconds = 10 }
        h.autoCommit = true
        h.open(1)  // the writer
        h.open(2)  // the slow reader
        h.subscribe(2)
        return h
    }

    @Test func aSlowClientIsResynchronisedThenClosedAfterItsTimeout() {
        let h = harness()
        for _ in 0..<12 { h.act(1, .toggle, #""section":"s1""#) }
        // The queue never drained: at the bound its backlog became one snapshot.
        let resyncs = h.effects.count { if case .resync(2, _) = $0 { true } else { false } }
        #expect(resyncs >= 1 && h.hub.metrics.resyncs == resyncs)
        #expect(h.queues[2]!.count <= 8)
        #expect(h.closes[2] == nil)

        h.advance(seconds: 9)
        #expect(h.closes[2] == nil, "not before the timeout")
        h.advance(seconds: 1)
        #expect(h.closes[2]?.code == 1008 && h.hub.metrics.slowClosed == 1)
        #expect(h.closes[1] == nil)
    }

    @Test func aClientThatReadsAgainStaysOpen() {
        let h = harness()
        for _ in 0..<12 { h.act(1, .toggle, #""section":"s1""#) }
        #expect(h.hub.metrics.resyncs >= 1)
        _ = h.read(2)
        h.feed(.queueDrained(id: 2))
        h.advance(seconds: 30)
        #expect(h.closes[2] == nil)
        // The snapshot it read covers every change: its rev is the board's.
        h.act(1, .toggle, #""section":"s1""#)
        #expect(h.read(2).last?.rev == 13)
    }

    @Test func theSnapshotReplacesTheBacklog() {
        let h = harness()
        // The first snapshot and seven patches fill the queue; the eighth does not fit.
        for _ in 0..<8 { h.act(1, .toggle, #""section":"s1""#) }
        let got = h.read(2)
        #expect(got.map(\.type) == ["snapshot"] && got.first?.rev == 8, "one snapshot holds the change that did not fit")
    }
}

extension SlowClientTests {
    @Test func aSlowOriginatorStillGetsItsAckAfterTheSnapshot() {
        let h = harness()
        for _ in 0..<7 { h.act(1, .toggle, #""section":"s1""#) }
        #expect(h.queues[2]!.count == 8, "full")
        h.act(2, .toggle, #""section":"s1""#, tag: "mine")
        let got = h.read(2)
        #expect(got.map(\.type) == ["snapshot", "ack"], "the resync comes first, so it cannot drop the ack")
        #expect(got[0].rev == 8 && got[1]["id"]?.stringValue == "mine")
    }
}
