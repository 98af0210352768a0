import FoldCore
import Testing
@testable import FoldHub

/// SIGTERM: pending writes are committed first, then every client gets 1001, then the loop stops.
@Suite struct ShutdownTests {
    func stopped(_ h: HubHarness) -> Bool { h.effects.contains { if case .stopServer = $0 { true } else { false } } }

    @Test func pendingWritesFinishBeforeGoodbye() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.act(1, .toggle, #""section":"s0""#, tag: "t")
        h.feed(.stop)
        #expect(h.closes.isEmpty, "the write in flight comes first")
        #expect(h.hub.stopping)
        h.finishCommits()
        #expect(h.read(1).last?.type == "ack")
        #expect(h.closes[1]?.code == 1001 && h.closes[2]?.code == 1001)
        #expect(!stopped(h))
        h.feed(.closed(id: 1))
        h.feed(.closed(id: 2))
        #expect(stopped(h))
    }

    @Test func theTimeoutStopsWhateverRemains() {
        let h = HubHarness { $0.shutdownTimeout = 3 }
        h.open(1)
        h.feed(.stop)
        #expect(h.closes[1]?.code == 1001)
        h.advance(seconds: 3)
        #expect(stopped(h))
    }
}

/// A stop while a connection's actions wait for their board to be read
/// from the store: they are applied, committed and answered before the 1001.
@Suite struct ShutdownDuringBoardReadTests {
    @Test func actionsHeldBehindABoardReadAreAnsweredBeforeGoodbye() {
        let ops = StoredBoard(name: "ops", epoch: "e9", rev: 3, state: Board.initial.encoded())
        let h = HubHarness(stored: [ops])
        h.holdBoardReads = true
        h.open(1)
        for i in 0..<3 { h.send(1, #"{"type":"toggle","board":"ops","id":"w\#(i)","section":"s1"}"#) }
        h.feed(.stop)
        #expect(h.closes.isEmpty, "no goodbye while the actions wait for their board")
        h.finishBoardReads()
        #expect(h.closes.isEmpty, "no goodbye while their commit is pending")
        h.finishCommits()
        let got = h.read(1)
        let acks = got.filter { $0.type == "ack" }
        #expect(acks.map { $0["id"]?.stringValue } == ["w0", "w1", "w2"] && acks.map(\.rev) == [4, 5, 6], "\(got)")
        #expect(h.closes[1]?.code == 1001)
    }
}
