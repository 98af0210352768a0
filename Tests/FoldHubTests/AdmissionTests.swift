import FoldCore
import FoldCrypto
import Testing
@testable import FoldHub

/// Upgrades are refused by origin and by the connection caps, before any session exists.
@Suite struct AdmissionTests {
    @Test func foreignOriginsAreRefusedTheDaemonsOwnIsNot() {
        let h = HubHarness { $0.web.allowOrigins = ["https://ok.example"] }
        #expect(h.hub.admit(headers: ["origin": "https://evil.example", "host": "d:1"], peer: "10.0.0.1")?.status == 403)
        #expect(h.hub.admit(headers: ["origin": "http://d:1", "host": "d:1"], peer: "10.0.0.1") == nil)
        #expect(h.hub.admit(headers: ["origin": "https://ok.example"], peer: "10.0.0.1") == nil)
        #expect(h.hub.metrics.upgradesRefused == ["origin": 1])
    }

    @Test func perAddressCapCountsNonLoopbackPeersOnly() {
        let h = HubHarness { $0.clients.maxConnectionsPerIP = 2 }
        h.open(1, peer: "10.0.0.1")
        h.open(2, peer: "10.0.0.1")
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.1")?.status == 503)
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.2") == nil)
        h.open(3, peer: "127.0.0.1")
        h.open(4, peer: "127.0.0.1")
        #expect(h.hub.admit(headers: [:], peer: "127.0.0.1") == nil, "loopback is not counted")
        h.feed(.closed(id: 1))
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.1") == nil, "a closed connection frees its place")
    }

    @Test func theTotalCap() {
        let h = HubHarness { $0.clients.maxConnections = 1 }
        h.open(1)
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.9")?.status == 503)
    }

    @Test func refusalsCarryTheHTTPAPIsErrorBody() throws {
        let h = HubHarness { $0.clients.maxConnections = 1 }
        h.open(1)
        let full = try #require(h.hub.admit(headers: [:], peer: "10.0.0.9"))
        #expect(try JSONParser.parse(full.body)["code"]?.stringValue == "unavailable")
        #expect(full.contentType == "application/json")
    }

    @Test func aWrongBearerTokenIsRefusedWith401AWrongSubprotocolTokenIsNot() throws {
        let secret = "s3cret-folder"
        let h = HubHarness { c in
            c.access.tokens = [try! AccessToken.parse("folder read,fold \(OpenSSLDigest().hex(Array(secret.utf8)))").get()]
        }
        let refused = try #require(h.hub.admit(headers: ["authorization": "Bearer nope"], peer: "10.0.0.1"))
        #expect(refused.status == 401)
        #expect(refused.headers.contains { $0.0 == "www-authenticate" && $0.1 == "Bearer" })
        #expect(try JSONParser.parse(refused.body)["code"]?.stringValue == "forbidden")
        #expect(h.hub.admit(headers: ["authorization": "Bearer \(secret)"], peer: "10.0.0.1") == nil)
        #expect(h.hub.admit(headers: ["sec-websocket-protocol": "foldsync.v1, token.nope"], peer: "10.0.0.1") == nil,
                "a browser's token is answered after the upgrade, where the page can read it")
        #expect(h.hub.admit(headers: [:], peer: "10.0.0.1") == nil, "no token yet: the auth message may bring one")
        #expect(h.hub.metrics.upgradesRefused == ["token": 1] && h.hub.metrics.authFailures == 1)
    }

    @Test func withoutTokensAnAuthorizationHeaderIsIgnored() {
        let h = HubHarness()
        #expect(h.hub.admit(headers: ["authorization": "Bearer anything"], peer: "10.0.0.1") == nil)
    }
}
