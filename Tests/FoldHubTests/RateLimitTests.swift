import FoldCore
import Testing
@testable import FoldHub

/// A token bucket per connection: `action-burst` at once, then
/// `max-actions-per-second`.
@Suite struct RateLimitTests {
    @Test func pastTheBurstMessagesAreRefusedUntilTheBucketRefills() {
        let h = HubHarness { $0.clients.actionBurst = 3; $0.clients.maxActionsPerSecond = 2 }
        h.open(1)
        for _ in 0..<4 { h.subscribe(1) }
        #expect(h.read(1).map { $0.code ?? $0.type! } == ["snapshot", "snapshot", "snapshot", "rate_limited"])
        #expect(h.hub.metrics.limitHits["max-actions-per-second"] == 1)
        h.now += 500_000_000  // half a second: one token back
        h.subscribe(1)
        h.subscribe(1)
        #expect(h.read(1).map { $0.code ?? $0.type! } == ["snapshot", "rate_limited"])
    }

    @Test func eachConnectionHasItsOwnBucket() {
        let h = HubHarness { $0.clients.actionBurst = 1; $0.clients.maxActionsPerSecond = 1 }
        h.open(1)
        h.open(2)
        h.subscribe(1)
        h.subscribe(1)
        h.subscribe(2)
        #expect(h.read(1).map { $0.code ?? $0.type! } == ["snapshot", "rate_limited"])
        #expect(h.read(2).map(\.type) == ["snapshot"])
    }

    @Test func theRefusalNamesTheActionItRefuses() {
        let h = HubHarness { $0.clients.actionBurst = 1; $0.clients.maxActionsPerSecond = 1 }
        h.open(1)
        h.subscribe(1)
        h.act(1, .toggle, #""section":"s0""#, tag: "t9")
        let refusal = h.read(1).last
        #expect(refusal?.code == "rate_limited" && refusal?["id"]?.stringValue == "t9" && refusal?["board"]?.stringValue == "default")
        // A message that is not JSON is still refused, naming nothing.
        h.now += 2_000_000_000
        h.subscribe(1)
        h.send(1, "{")
        h.send(1, "{")
        #expect(h.read(1).last.map { $0.code == "rate_limited" && $0["id"] == nil } == true)
    }
}
