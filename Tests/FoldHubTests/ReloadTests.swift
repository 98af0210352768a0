import FoldCore
import FoldCrypto
import Testing
@testable import FoldHub

/// The hub's side of a reload: new settings apply to the next action and to
/// open connections' rights at once, and a refused file changes nothing.
/// (Which options apply live: FoldConfigTests' ReloadPlanTests.)
@Suite struct ReloadTests {
    @Test func aLoweredLimitAppliesToTheNextAction() throws {
        let h = HubHarness()
        h.autoCommit = true
        h.open(1)
        var fresh = h.hub.settings
        fresh.limits.maxSections = 3
        h.feed(.reload(fresh))
        #expect(h.hub.settings.limits.maxSections == 3)
        h.act(1, .addSection, #""section":{"title":"four"}"#)
        #expect(h.read(1).map(\.code) == ["invalid"])
        #expect(h.closes.isEmpty)
    }

    @Test func aRemovedTokenLosesItsRightsOnOpenConnections() throws {
        let hex = OpenSSLDigest().hex(Array("folder-secret".utf8))
        let folder = try AccessToken.parse("folder read,fold \(hex)").get()
        let admin = try AccessToken.parse("admin read,fold,edit,admin \(String(repeating: "cd", count: 32))").get()
        let h = HubHarness { $0.access.tokens = [admin, folder] }
        h.feed(.opened(id: 1, peer: "10.0.0.1", headers: ["authorization": "Bearer folder-secret"], batching: false))
        _ = h.read(1)
        var fresh = h.hub.settings
        fresh.access.tokens = [admin]
        h.feed(.reload(fresh))
        h.subscribe(1)
        #expect(h.read(1).map(\.code) == ["forbidden"])
    }

    @Test func aRefusedConfigurationChangesNothing() throws {
        let h = HubHarness { $0.limits.maxSections = 4 }
        // What the daemon's configuration reader said about the file.
        let before = h.hub.settings
        h.feed(.reloadRefused("foldsyncd.conf:2: max-items expects an integer in 0...10000000, got 'lots'"))
        #expect(h.hub.settings == before && h.hub.settings.limits.maxSections == 4)
        #expect(h.hub.statusLine.contains("last reload refused: foldsyncd.conf:2: max-items"))

        // A good one afterwards clears the refusal.
        h.feed(.reload(h.hub.settings))
        #expect(!h.hub.statusLine.contains("refused"))
    }
}
