import FoldCore
import FoldCrypto
import Testing
@testable import FoldHub

/// With tokens configured, a connection proves one at the upgrade or in an
/// `auth` message within the auth timeout, or is closed.
@Suite struct AuthTests {
    static let secret = "s3cret-folder"

    func harness() -> HubHarness {
        HubHarness { c in
            let hex = OpenSSLDigest().hex(Array(Self.secret.utf8))
            c.access.tokens = [try! AccessToken.parse("folder read,fold \(hex)").get()]
            c.clients.authTimeout = 10
        }
    }

    @Test func noTokenInTimeIsClosed() {
        let h = harness()
        h.open(1)
        #expect(h.wakes.last == h.now + 10_000_000_000)
        h.subscribe(1)
        #expect(h.read(1).map(\.code) == ["forbidden"])
        h.advance(seconds: 9.9)
        #expect(h.closes[1] == nil)
        h.advance(seconds: 0.1)
        #expect(h.closes[1]?.code == 1008 && h.hub.metrics.authTimeouts == 1)
    }

    @Test func anAuthMessageInTimeStaysAndGainsItsRights() {
        let h = harness()
        h.open(1)
        h.send(1, #"{"type":"auth","token":"\#(Self.secret)"}"#)
        #expect(h.read(1).map(\.type) == ["authenticated"])
        h.advance(seconds: 20)
        #expect(h.closes[1] == nil)
        h.subscribe(1)
        #expect(h.read(1).map(\.type) == ["snapshot"])
        h.act(1, .setTitle, #""section":"s1","title":"x""#)
        #expect(h.read(1).map(\.code) == ["forbidden"], "fold and read only")
    }

    @Test func aBearerTokenAtTheUpgradeNeedsNoDeadline() {
        let h = harness()
        h.feed(.opened(id: 1, peer: "10.0.0.1", headers: ["authorization": "Bearer \(Self.secret)"], batching: false))
        #expect(h.read(1).map(\.type) == ["hello", "authenticated"])
        #expect(h.wakes.isEmpty)
    }

    @Test func aWrongTokenIsForbidden() {
        let h = harness()
        h.open(1)
        h.send(1, #"{"type":"auth","token":"nope"}"#)
        #expect(h.read(1).map(\.code) == ["forbidden"] && h.hub.metrics.authFailures == 1)
    }
}
