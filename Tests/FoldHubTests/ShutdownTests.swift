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
