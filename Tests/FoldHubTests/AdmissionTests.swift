import FoldCore
import Testing
@testable import FoldHub

/// Upgrades are refused by origin and by the connection caps, before any session exists.
@Suite struct AdmissionTests {
    @Test func foreignOriginsAreRefusedTheDaemonsOwnIsNot() {
        let h = HubHarness { $0.allowOrigins = ["https://ok.example"] }
        #expect(h.hub.admit(headers: ["origin": "https://evil.example", "host": "d:1"], peer: "10.0.0.1") == 403)
        #expect(h.hub.admit(headers: ["origin": "http://d:1", "host": "d:1"], peer: "10.0.0.1") == nil)
        #expect(h.hub.admit(headers: ["origin": "https://ok.example"], peer: "10.0.0.1") == nil)
        #expect(h.hub.metrics.upgradesRefused == ["origin": 1])
    }

    @Test func perAddressCapCountsNonLoopbackPeersOnly() {
        let h = HubHarness { $0.maxConnectionsPerIP = 2 }
        h.open(1, peer: "10.0.0.1")
        h.open(2, peer: "10.0.0.1")
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.1") == 503)
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.2") == nil)
        h.open(3, peer: "127.0.0.1")
        h.open(4, peer: "127.0.0.1")
        #expect(h.hub.admit(headers: [:], peer: "127.0.0.1") == nil, "loopback is not counted")
        h.feed(.closed(id: 1))
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.1") == nil, "a closed connection frees its place")
    }

    @Test func theTotalCap() {
        let h = HubHarness { $0.maxConnections = 1 }
        h.open(1)
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.9") == 503)
    }
}
